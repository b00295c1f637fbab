#!/usr/bin/env bash
# One-shot, idempotent set-up of a fresh Debian 12 machine (as root) for the main job
# (`pnpm quickstart`, `runtime-bench stack up` / `run`): the runtime stack and the suites' tools
# from Debian's packages, Node 24 (from the npm package node@24 when the machine's Node is older),
# pnpm, and the locked dependencies of the CLI. The test tools (browser, CPU hogs, act,
# actionlint, Kubernetes) are scripts/setup-test.sh's.
# Everything it installs outside apt lives under $RB_TOOLS (default /opt/runtime-bench/tools).
set -euo pipefail

RB_TOOLS=${RB_TOOLS:-/opt/runtime-bench/tools}
NODE_SPEC=${RB_NODE_SPEC:-node@24}
PNPM_SPEC=${RB_PNPM_SPEC:-pnpm@10.34.9}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
setup_name=setup
# shellcheck source=scripts/setup-lib.sh
. "$repo/scripts/setup-lib.sh"

[ "$(id -u)" = 0 ] || { echo "setup.sh must run as root (it installs apt packages)" >&2; exit 1; }

# Debian packages: the runtime stack under test and the benchmark images' ingredients; skopeo
# loads the images of a CRI-O stack into its private containers-storage, offline, and pushes the
# image.* benchmarks' images to the stack's own registry (docker-registry: the CNCF distribution
# registry, on loopback). npm is only the
# bootstrapper for Node 24 and pnpm: a bare Debian 12 gets it from apt, without its recommends (a C
# toolchain for native add-ons: 1200 packages instead of about 400), in the same apt-get call.
packages=(containerd runc crun sysbench containernetworking-plugins conmon umoci busybox-static
  catatonit patchelf iproute2 util-linux git ca-certificates curl skopeo docker-registry)
command -v npm >/dev/null || packages+=(nodejs npm)
apt_install_missing "${packages[@]}"
# Debian's containerd package may start a system containerd; our stacks are private and never use it.

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

# The CLI's dependencies and the workspace root's link to it (`pnpm exec runtime-bench`), not the
# site's or the test tooling's: those are scripts/setup-test.sh's full install, which a later run
# of this script keeps (a --prod install would remove them). RB_PNPM_INSTALL_FLAGS replaces the
# whole flag set.
cd "$repo"
flags="--frozen-lockfile --prod --filter runtime-bench-workspace --filter @runtime-bench/runner..."
[ -e node_modules/.bin/vitest ] && flags="--frozen-lockfile"
# shellcheck disable=SC2086
CI=true pnpm install ${RB_PNPM_INSTALL_FLAGS:-$flags} --reporter=append-only >/dev/null
log "CLI dependencies installed"

# `runtime-bench` on PATH, as the docs write it (no `pnpm exec`, from any directory).
write_cli_wrapper /usr/local/bin/runtime-bench "$repo" "$(command -v node)"
log "$(runtime-bench --version) on PATH"
