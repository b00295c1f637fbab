#!/usr/bin/env bash
# The test set-up on top of scripts/setup.sh (run first, here): the browser for the site tests,
# stress-ng for the tests beside CPU hogs, act and actionlint for the workflow tests, Kubernetes for
# the cluster mode's tests — each built once and cached under /opt/runtime-bench — and the whole
# workspace's locked dependencies (site, action, test tooling). Idempotent; as root.
#   bash scripts/setup-test.sh && pnpm test
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$repo/scripts/setup.sh"
RB_TOOLS=${RB_TOOLS:-/opt/runtime-bench/tools}
setup_name=setup-test
# shellcheck source=scripts/setup-lib.sh
. "$repo/scripts/setup-lib.sh"
export PATH=/usr/local/bin:$PATH

# Chromium (Debian's, through playwright-core: never a downloaded browser) for the site tests;
# stress-ng for .ci/loaded.sh and RB_TEST_CPU_HOGS (the tests beside CPU hogs).
apt_install_missing chromium fonts-dejavu-core stress-ng
# Build dependencies of runtimes built from source (install --source go|git: runc links libseccomp
# statically; install --source debian-source|git crun: the libraries its configure.ac asks for, and
# the autotools and gperf a checkout needs), for the build and sweep tests; a user's install names
# them when missing.
apt_install_missing libseccomp-dev pkg-config
apt_install_missing libcap-dev libsystemd-dev libyajl-dev autoconf automake libtool gperf
# zip: the act loop test serves runc releases from a Go module proxy on disk (module zips).
apt_install_missing zip

# Docker and Podman for the engine targets' tests (runner/test/integration/engine.test.ts) only:
# every run starts its own private dockerd or Podman root, so their system services must not
# start on install (a policy-rc.d that refuses them is in place while apt runs, unless one is).
own_policy=false
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=true
fi
apt_install_missing docker.io podman
if $own_policy; then rm -f /usr/sbin/policy-rc.d; fi

# Go tools for the workflow tests, from the Go module proxy: actionlint (lints the workflows) and
# act (runs them end to end on this host, action/test/act/). Pinned; reinstalled only when the
# installed binary reports another version.
GO=${RB_GO:-$(command -v go || echo /usr/local/go/bin/go)}
go_tool() { # name module version
  local bin="$RB_TOOLS/bin/$1"
  local printed
  printed=$("$bin" --version 2>/dev/null) || printed="" # read whole: `| grep -q` under pipefail may SIGPIPE
  if [[ $printed != *"${3#v}"* ]]; then
    if [ ! -x "$GO" ]; then
      log "no Go toolchain (set RB_GO): $1 not installed; the tests that need it are skipped"
      return 0
    fi
    log "go install $2@$3"
    GOBIN="$RB_TOOLS/bin" GOFLAGS=-mod=mod "$GO" install "$2@$3"
  fi
  ln -sf "$bin" "/usr/local/bin/$1"
}
mkdir -p "$RB_TOOLS/bin"
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

# nerdctl for the engine targets' tests (runner/test/integration/engine.test.ts): nerdctl 2.1.2 and
# the containerd those tests pin (1.7.35), built from the Go module proxy by `runtime-bench install
# --source go`, cached by version and toolchain under /opt/runtime-bench (a no-op once built;
# build-containerd.test.ts builds the same containerd and finds it there). nerdctl 2.1.3's
# cmd/nerdctl imports its nested module mod/tigron, which the proxy's zip leaves out; 2.1.2's does
# not. Each install keeps a record of its own (not the user's default
# <prefix>/state/install.json). Cold (empty Go caches, 2 cores): nerdctl ≈ 100 s, and the
# containerd build the build test would otherwise make. RB_SKIP_NERDCTL=1 leaves them out.
rb_install_go() { # component@version
  local state="/opt/runtime-bench/state/test-${1/@/-}/install.json"
  mkdir -p "$(dirname "$state")"
  (cd "$repo" && PATH="$(dirname "$GO"):$PATH" pnpm exec runtime-bench install --source go --state "$state" "$1")
}
if [ -n "${RB_SKIP_NERDCTL:-}" ]; then
  log "RB_SKIP_NERDCTL set: nerdctl not built; its engine tests are skipped"
elif [ -x "$GO" ]; then
  for c in nerdctl@2.1.2 containerd@1.7.35; do rb_install_go "$c"; done
  log "nerdctl 2.1.2 and containerd 1.7.35 under /opt/runtime-bench"
else
  log "no Go toolchain (set RB_GO): nerdctl not built; its engine tests are skipped"
fi

cd "$repo"
CI=true pnpm install --frozen-lockfile --reporter=append-only >/dev/null
log "workspace dependencies installed"
