#!/usr/bin/env bash
# First step of the action: make sure Node 24 runs the TypeScript sources and the production
# dependencies of the action (and of the runner and schemas it uses) are installed in the action's
# checkout. Idempotent and cheap when warm: a checkout whose dependencies were installed from the
# same pnpm-lock.yaml is reused as is (the lockfile's digest is kept beside node_modules), and a
# fresh checkout links packages from the runner's pnpm store (--prefer-offline) instead of
# downloading them. Changes nothing outside the action's directory and the pnpm store. Writes its
# duration and how it was satisfied to the step timings the job summary prints.
set -euo pipefail
start=$(date +%s.%N)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${RB_ACTION_DIR:-${RUNNER_TEMP:-/tmp}/runtime-bench}
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 24 ]; then
  echo "::error title=runtime-bench::Node.js 24 or later is needed on the runner (found ${major}); run scripts/setup.sh once as root" >&2
  exit 1
fi
lock=$(sha256sum "$root/pnpm-lock.yaml" | cut -d' ' -f1)
marker="$root/node_modules/.runtime-bench-action-lock"
how="reused (same pnpm-lock.yaml)"
if [ -d "$root/action/node_modules/@actions/core" ] && { [ ! -e "$marker" ] || [ "$(cat "$marker")" = "$lock" ]; }; then
  : # a full workspace install (a developer's checkout) or ours from the same lockfile
else
  cd "$root"
  # Only the action's closure, production dependencies: no site, no test tooling.
  args=(install --frozen-lockfile --prod --prefer-offline --filter "@runtime-bench/action..." --reporter=append-only)
  if command -v pnpm >/dev/null; then CI=true pnpm "${args[@]}"
  else CI=true npx --yes pnpm@10.34.9 "${args[@]}"; fi
  echo "$lock" >"$marker"
  how="installed (pnpm install --prod --prefer-offline: from the pnpm store, else the registry)"
fi
mkdir -p "$work"
printf 'setup\t%s\t%s\n' "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" "$how" >>"$work/timings.tsv"
