#!/usr/bin/env bash
# Lints every workflow (the reusable one and the callers' examples) with actionlint: the one
# scripts/setup-test.sh installed, or else installed from the Go module proxy into a cache directory.
# action.yml is not a workflow: its structure is checked by action/test/action-yml.test.ts.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=v1.7.12
cache=${RB_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/runtime-bench/tools}
bin="$cache/actionlint-$version/actionlint"
# scripts/setup-test.sh installs the same version into /usr/local/bin; use it when it is there.
# Read whole before searching: `actionlint --version | grep -q` under pipefail may die of SIGPIPE.
if command -v actionlint >/dev/null && [[ $'\n'"$(actionlint --version)"$'\n' == *$'\n'"$version"$'\n'* ]]; then
  bin=$(command -v actionlint)
elif [ ! -x "$bin" ]; then
  go=$(command -v go || echo /usr/local/go/bin/go)
  echo "== actionlint: installing $version into $cache" >&2
  GOBIN="$(dirname "$bin")" GOFLAGS=-mod=mod "$go" install "github.com/rhysd/actionlint/cmd/actionlint@$version"
fi
cd "$repo"
# shellcheck is used by actionlint when present, for the scripts in run: steps.
"$bin" -no-color .github/workflows/*.yml workflows/*.yml
echo "actionlint: $(ls .github/workflows/*.yml workflows/*.yml | wc -l) workflow files clean"
