#!/usr/bin/env bash
# First step of the action: make sure Node 24 runs the TypeScript sources and the workspace's
# locked dependencies are installed in the action's checkout. Idempotent; changes nothing
# outside the action's directory unless Node 24 is missing (then scripts/setup.sh's bootstrap).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 24 ]; then
  echo "::error title=runtime-bench::Node.js 24 or later is needed on the runner (found ${major}); run scripts/setup.sh once as root" >&2
  exit 1
fi
if [ ! -d "$root/node_modules/@runtime-bench" ]; then
  cd "$root"
  if command -v pnpm >/dev/null; then pnpm install --frozen-lockfile --reporter=append-only
  else npx --yes pnpm@10.34.9 install --frozen-lockfile --reporter=append-only; fi
fi
