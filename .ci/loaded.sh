#!/usr/bin/env bash
# The integration tests on a loaded runner: two stress-ng CPU hogs (one per core of a 2-core CI
# machine) run beside them for the whole project, bounded by a timeout and killed on exit however
# the tests end. Tests must hold on kernel counters and ordering, not on wall-time ratios.
#   bash .ci/loaded.sh [vitest args…]      e.g. bash .ci/loaded.sh test/integration/matrix-containerd.test.ts
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v stress-ng >/dev/null || { echo "stress-ng is missing: bash scripts/setup.sh installs it" >&2; exit 1; }
budget=${RB_LOADED_BUDGET_SECONDS:-1800}
stress-ng --cpu 2 --cpu-method all --timeout "${budget}s" --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true' EXIT
echo "== loaded: stress-ng --cpu 2 (pid $hog) beside the integration tests" >&2
pnpm exec vitest run --project integration "$@"
