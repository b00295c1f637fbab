#!/usr/bin/env bash
# The project's test command (the README's and CI's): type-check, lint, actionlint on the
# workflows, then every vitest project — unit, integration against a real containerd stack (as
# root), action, site (Astro build + headless Chromium). Ends with one "N passed, N failed" line.
# RB_TEST_CPU_HOGS=N runs the tests beside N stress-ng CPU hogs, as CI does (.ci/run): a shared,
# loaded runner is what this tool targets, so no test may depend on an idle machine.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export PATH=/usr/local/bin:$PATH

status=0
step() {
  echo "== test: $*" >&2
  "$@" || { echo "== test: FAILED: $*" >&2; status=1; }
}
step pnpm exec tsc -p tsconfig.json
step pnpm exec eslint .
step bash .ci/actionlint.sh
report=$(mktemp)
step bash scripts/with-cpu-hogs.sh "${RB_TEST_CPU_HOGS:-0}" \
  pnpm exec vitest run --reporter=default --reporter=json --outputFile="$report"
# Every skip must be on scripts/allowed-skips.yaml with its reason; an unlisted one fails the run.
node runner/test/support/skips.ts "$report" scripts/allowed-skips.yaml || status=1
rm -f "$report"
exit $status
