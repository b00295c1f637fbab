#!/usr/bin/env bash
# The integration tests on a loaded runner: two stress-ng CPU hogs (one per core of a 2-core CI
# machine) run beside them for the whole project. Tests must hold on kernel counters and ordering,
# not on wall-time ratios. CI runs the whole test command this way (RB_TEST_CPU_HOGS=2, .ci/run).
#   bash .ci/loaded.sh [vitest args…]      e.g. bash .ci/loaded.sh test/integration/matrix-containerd.test.ts
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec bash scripts/with-cpu-hogs.sh "${RB_TEST_CPU_HOGS:-2}" pnpm exec vitest run --project integration "$@"
