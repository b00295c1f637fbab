#!/usr/bin/env bash
# One-shot, idempotent set-up of a fresh Debian 12 machine (as root) for runtime-bench:
# the real runtime stack from Debian's packages, Node 24 (from the npm package node@24 when the
# machine's Node is older), pnpm, and the workspace's locked dependencies.
# Everything it installs outside apt lives under $RB_TOOLS (default /opt/runtime-bench/tools).
set -euo pipefail

RB_TOOLS=${RB_TOOLS:-/opt/runtime-bench/tools}
NODE_SPEC=${RB_NODE_SPEC:-node@24}
PNPM_SPEC=${RB_PNPM_SPEC:-pnpm@10.34.9}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '== setup: %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { echo "setup.sh must run as root (it installs apt packages)" >&2; exit 1; }

# Debian packages: the runtime stack under test, image ingredients, the browser for site tests,
# stress-ng for .ci/loaded.sh (the integration tests beside CPU hogs); skopeo loads the images of
# a CRI-O stack into its private containers-storage, offline, and pushes the image.* benchmarks'
# images to the stack's own registry (docker-registry: the CNCF distribution registry, on loopback).
apt_packages=(containerd runc crun sysbench containernetworking-plugins conmon umoci
  busybox-static catatonit patchelf iproute2 util-linux git ca-certificates curl
  chromium fonts-dejavu-core stress-ng skopeo docker-registry)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's containerd package may start a system containerd; our stacks are private and never use it.

# npm is only the bootstrapper for Node 24 and pnpm; a bare Debian 12 gets it from apt.
if ! command -v npm >/dev/null; then
  log "apt-get install nodejs npm (to bootstrap Node 24)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
mkdir -p "$RB_TOOLS/bin"
if [ "$(node_major "$(command -v node || echo node)")" -lt 24 ]; then
  if [ "$(node_major "$RB_TOOLS/node/node_modules/.bin/node")" -lt 24 ]; then
    log "installing Node from the npm package $NODE_SPEC into $RB_TOOLS/node"
    npm install --no-save --prefix "$RB_TOOLS/node" "$NODE_SPEC" >/dev/null
  fi
  ln -sf "$RB_TOOLS/node/node_modules/.bin/node" /usr/local/bin/node
fi
export PATH=/usr/local/bin:$PATH
hash -r
log "node $(node --version)"

if [ "$(pnpm --version 2>/dev/null || true)" != "${PNPM_SPEC#pnpm@}" ]; then
  log "installing $PNPM_SPEC into $RB_TOOLS/pnpm"
  npm install --no-save --prefix "$RB_TOOLS/pnpm" "$PNPM_SPEC" >/dev/null
  ln -sf "$RB_TOOLS/pnpm/node_modules/.bin/pnpm" /usr/local/bin/pnpm
  hash -r
fi
log "pnpm $(pnpm --version)"

# Go tools for the workflow tests, from the Go module proxy: actionlint (lints the workflows) and
# act (runs them end to end on this host, action/test/act/). Pinned; reinstalled only when the
# installed binary reports another version.
GO=${RB_GO:-$(command -v go || echo /usr/local/go/bin/go)}
go_tool() { # name module version
  local bin="$RB_TOOLS/bin/$1"
  if ! "$bin" --version 2>/dev/null | grep -qF "${3#v}"; then
    if [ ! -x "$GO" ]; then
      log "no Go toolchain (set RB_GO): $1 not installed; the tests that need it are skipped"
      return 0
    fi
    log "go install $2@$3"
    GOBIN="$RB_TOOLS/bin" GOFLAGS=-mod=mod "$GO" install "$2@$3"
  fi
  ln -sf "$bin" "/usr/local/bin/$1"
}
go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint v1.7.12
go_tool act github.com/nektos/act v0.2.89
if command -v act >/dev/null && command -v actionlint >/dev/null; then
  log "actionlint $(actionlint --version | head -1), act $(act --version | awk '{print $NF}')"
fi

# Kubernetes for the cluster mode's tests (runner/test/integration/kubernetes.test.ts): etcd,
# kube-apiserver, kube-scheduler, kube-controller-manager and kubelet built from the Go module
# proxy, cached by version under /opt/runtime-bench/kubernetes (a no-op once built). Cold: ≈ 7 min
# and 2 GB RAM on 2 cores; RB_SKIP_KUBERNETES=1 leaves it out (those tests are then skipped).
if [ -n "${RB_SKIP_KUBERNETES:-}" ]; then
  log "RB_SKIP_KUBERNETES set: Kubernetes not built; the cluster-mode tests are skipped"
elif [ -x "$GO" ]; then
  RB_GO="$GO" bash "$repo/scripts/build-kubernetes.sh"
else
  log "no Go toolchain (set RB_GO): Kubernetes not built; the cluster-mode tests are skipped"
fi

cd "$repo"
CI=true pnpm install ${RB_PNPM_INSTALL_FLAGS:---frozen-lockfile} --reporter=append-only >/dev/null
log "workspace dependencies installed"
