#!/usr/bin/env bash
# Runs a command beside N stress-ng CPU hogs, as on a busy shared runner: the hogs are bounded by a
# timeout and killed however the command ends. The command's exit status is returned.
#   bash scripts/with-cpu-hogs.sh N command [args…]
set -uo pipefail
hogs=$1
shift
if [ "$hogs" -gt 0 ] 2>/dev/null; then
  command -v stress-ng >/dev/null || {
    echo "stress-ng is missing: bash scripts/setup-test.sh installs it" >&2
    exit 1
  }
  stress-ng --cpu "$hogs" --cpu-method all --timeout "${RB_HOGS_BUDGET_SECONDS:-3600}s" --quiet &
  hog=$!
  trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null' EXIT
  echo "== $hogs stress-ng CPU hog(s) (pid $hog) beside: $*" >&2
fi
"$@"
