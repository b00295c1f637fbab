#!/usr/bin/env bash
# Release the action: `bash scripts/release.sh vX.Y.Z [--push]` from a clean checkout of main.
# Checks what the action needs at run time (the JSON Schemas are generated and committed, the
# workflows lint clean, the action's production dependencies install from the lockfile alone and
# its entry point starts), then makes the annotated tag vX.Y.Z and moves the major tag (v1) to it.
# Node 24 runs the TypeScript sources directly, so there is nothing to compile: the tagged tree is
# what runs. With --push, pushes both tags to origin (the major tag with --force). The release
# workflow (.github/workflows/release.yml) runs this; action/test/act/ runs the tagged tree.
set -euo pipefail
version=${1:-}
push=${2:-}
[[ "$version" =~ ^v([0-9]+)\.[0-9]+\.[0-9]+$ ]] || {
  echo "usage: scripts/release.sh vX.Y.Z [--push]" >&2
  exit 2
}
major="v${BASH_REMATCH[1]}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf '== release: %s\n' "$*" >&2; }

[ -z "$(git status --porcelain --untracked-files=no)" ] || {
  echo "release: the work tree has uncommitted changes; commit them first" >&2
  exit 1
}
if git rev-parse -q --verify "refs/tags/$version" >/dev/null; then
  echo "release: tag $version exists already; versions are never reused" >&2
  exit 1
fi

# What the tagged tree must carry: up-to-date generated schemas (the publish step copies them to
# the data branch) and lint-clean workflows.
if [ -d node_modules/@runtime-bench ] || [ -d schemas/node_modules ]; then
  pnpm --filter @runtime-bench/schemas generate >/dev/null
  [ -z "$(git status --porcelain -- schemas/json)" ] || {
    echo "release: schemas/json is stale; run pnpm --filter @runtime-bench/schemas generate and commit" >&2
    exit 1
  }
fi
if command -v actionlint >/dev/null; then bash .ci/actionlint.sh; fi

# The action's own install, in a scratch copy of the tree: the lockfile alone must be enough.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git archive HEAD | tar -x -C "$scratch"
RB_ACTION_DIR="$scratch/.work" RB_ACTION_CACHE="$scratch/.cache" bash "$scratch/action/setup.sh"
node "$scratch/runner/bin/runtime-bench.js" --help >/dev/null
log "the action's dependencies install from the lockfile and its CLI starts"

git tag -a "$version" -m "runtime-bench $version"
git tag -f -a "$major" -m "$major → $version" "$version^{}"
log "tagged $version and moved $major to $(git rev-parse --short "$version^{}")"
if [ "$push" = --push ]; then
  git push origin "refs/tags/$version"
  git push --force origin "refs/tags/$major"
  log "pushed $version and $major"
fi
