#!/usr/bin/env bash
# Builds critest (cri-tools' CRI validation and benchmark binary) from the Go module proxy, for
# runner/bench/critest-compare.ts, the check of our per-call timings against critest's --benchmark.
#
#   bash scripts/build-critest.sh [VERSION]     (default 1.37.0)
#
# Built as cri-tools' Makefile builds it: critest is the test binary of ./cmd/critest
# (`go test -c`), CGO off, -trimpath, its version linked into pkg/version.Version. The Makefile
# builds from its vendor tree; module zips carry no vendor directory, so the dependencies come from
# the proxy at the versions cri-tools' go.mod names (the same ones, by its vendor/modules.txt).
#
# Idempotent: the binary is cached under $RB_CRITEST_ROOT/<version>/bin/critest (default
# /opt/runtime-bench/critest) and the script returns at once when it is there and reports the
# wanted version. The wrapper module lives in a temp dir that is removed on exit: nothing from a
# fetched module is ever written into this repository.
set -euo pipefail

VERSION=${1:-${RB_CRITEST_VERSION:-1.37.0}}
VERSION=${VERSION#v}
ROOT=${RB_CRITEST_ROOT:-/opt/runtime-bench/critest}
GO=${RB_GO:-$(command -v go || echo /usr/local/go/bin/go)}
dest="$ROOT/$VERSION/bin"
log() { printf '== build-critest: %s\n' "$*" >&2; }

# Whether `critest --version` prints "critest version: VERSION". The output is read whole before
# it is searched: with pipefail, `critest --version | grep -q` fails whenever grep exits at its
# first match while the binary still writes: SIGPIPE, status 141, a good cache judged stale.
reports_version() {
  local out
  out=$("$dest/critest" --version 2>/dev/null) || return 1
  [[ $out == *"critest version: $VERSION"* ]]
}

if reports_version; then
  log "cached: $dest/critest (v$VERSION)"
  exit 0
fi
[ -x "$GO" ] || { echo "build-critest: no Go toolchain (install Go or set RB_GO)" >&2; exit 1; }

work=$(mktemp -d /tmp/rb-build-critest.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"
# A cri-tools release may need a newer Go than the local one: GOTOOLCHAIN=auto (Go's default)
# fetches the toolchain its go.mod names from the module proxy.
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
cd "$work"
"$GO" mod init rb-build/critest >/dev/null 2>&1
echo "require sigs.k8s.io/cri-tools v$VERSION" >>go.mod
# cmd/critest holds test files only, so `go get PKG` has nothing to build there: download the
# module, then let `go test -c` (with -mod=mod) record the test dependencies it needs. No
# `go mod tidy`: with no package of its own importing cri-tools, it would drop the requirement,
# and `go test` would then resolve the package at the newest release instead of VERSION.
"$GO" mod download "sigs.k8s.io/cri-tools@v$VERSION" || {
  echo "build-critest: could not download sigs.k8s.io/cri-tools@v$VERSION from the module proxy" \
    "(not every release is served: try another version)" >&2
  exit 1
}
log "go test -c sigs.k8s.io/cri-tools/cmd/critest@v$VERSION -> $dest/critest"
"$GO" test -c -trimpath -o "$dest/critest" \
  -ldflags "-X sigs.k8s.io/cri-tools/pkg/version.Version=$VERSION" \
  sigs.k8s.io/cri-tools/cmd/critest

reports_version || { echo "build-critest: built $dest/critest does not report version $VERSION" >&2; exit 1; }
log "done: $dest/critest"
