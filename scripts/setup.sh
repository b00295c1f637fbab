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

# Debian packages: the runtime stack under test, image ingredients, the browser for site tests.
# skopeo loads the images of a CRI-O stack into its private containers-storage, offline.
apt_packages=(containerd runc crun sysbench containernetworking-plugins conmon umoci
  busybox-static catatonit patchelf iproute2 util-linux git ca-certificates curl
  chromium fonts-dejavu-core skopeo)
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

cd "$repo"
CI=true pnpm install ${RB_PNPM_INSTALL_FLAGS:---frozen-lockfile} --reporter=append-only >/dev/null
log "workspace dependencies installed"
