#!/usr/bin/env bash
# First step of the action: make sure Node 24 runs the TypeScript sources and the production
# dependencies of the action (and of the runner and schemas it uses) are installed in the action's
# checkout. Idempotent and cheap when warm: a checkout whose dependencies were installed from the
# same pnpm-lock.yaml is reused as is (the lockfile's digest is kept beside node_modules); a fresh
# checkout gets the trees installed for the same lockfile by an earlier job from the runner's tool
# cache (hard links); otherwise pnpm installs them from its store (--prefer-offline) or the
# registry, and the result is cached. Changes nothing outside the action's directory and the pnpm store. Writes its
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
# The runner-wide cache of installed dependency trees, keyed by the lockfile and Node's major.
cache="${RB_ACTION_CACHE:-${RUNNER_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}}/runtime-bench/action-deps}/${lock:0:16}-node$major"
dirs=(node_modules action/node_modules runner/node_modules schemas/node_modules)
how="reused (same pnpm-lock.yaml)"
if [ -d "$root/action/node_modules/@actions/core" ] && { [ ! -e "$marker" ] || [ "$(cat "$marker")" = "$lock" ]; }; then
  : # a full workspace install (a developer's checkout) or ours from the same lockfile
elif [ -e "$cache/complete" ] && for d in "${dirs[@]}"; do
  rm -rf "${root:?}/$d"
  # Hard links when the cache is on the same file system (fast), else a copy. pnpm's links
  # inside the trees are relative, so they resolve in this checkout.
  cp -al "$cache/$d" "$root/$d" 2>/dev/null || cp -a "$cache/$d" "$root/$d" || exit 1
done; then
  how="linked from the runner's cache for this pnpm-lock.yaml (${lock:0:16})"
else
  cd "$root"
  # Only the action's closure, production dependencies: no site, no test tooling.
  args=(install --frozen-lockfile --prod --prefer-offline --filter "@runtime-bench/action..." --reporter=append-only)
  if command -v pnpm >/dev/null; then CI=true pnpm "${args[@]}"
  else CI=true npx --yes pnpm@10.34.9 "${args[@]}"; fi
  echo "$lock" >"$marker"
  how="installed (pnpm install --prod --prefer-offline: from the pnpm store, else the registry)"
  # Fill the cache for the next job: built beside it, then renamed into place (atomic; a
  # concurrent job that lost the race just drops its copy).
  if mkdir -p "$(dirname "$cache")" 2>/dev/null; then
    part=$(mktemp -d "$cache.part.XXXXXX")
    for d in "${dirs[@]}"; do
      mkdir -p "$(dirname "$part/$d")"
      cp -al "$root/$d" "$part/$d" 2>/dev/null || cp -a "$root/$d" "$part/$d"
    done
    touch "$part/complete"
    mv -T "$part" "$cache" 2>/dev/null || rm -rf "$part"
  fi
fi
mkdir -p "$work"
printf 'setup\t%s\t%s\n' "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" "$how" >>"$work/timings.tsv"
