#!/usr/bin/env bash
# Builds the Kubernetes control plane + kubelet and etcd from the Go module proxy, for the cluster
# mode's tests (runner/test/integration/kubernetes.test.ts) and `runtime-bench cluster up`.
#
#   bash scripts/build-kubernetes.sh [K8S_VERSION] [ETCD_VERSION]     (default 1.34.4 3.6.4)
#
# Idempotent: the binaries are cached under $RB_KUBERNETES_ROOT/<version>/bin (default
# /opt/runtime-bench/kubernetes) and the script returns at once when every one of them is there and
# reports the wanted version. The wrapper modules live in a temp dir that is removed on exit:
# nothing from a fetched module is ever written into this repository.
#
# Why wrapper modules: k8s.io/kubernetes requires its staging modules (k8s.io/api, client-go, …)
# at v0.0.0 and replaces them with ./staging paths, which only work inside its own tree; a module
# that requires it must replace each staging module by its published v0.<minor>.<patch> tag.
set -euo pipefail

K8S_VERSION=${1:-${RB_KUBERNETES_VERSION:-1.34.4}}
ETCD_VERSION=${2:-${RB_ETCD_VERSION:-3.6.4}}
K8S_VERSION=${K8S_VERSION#v}
ETCD_VERSION=${ETCD_VERSION#v}
ROOT=${RB_KUBERNETES_ROOT:-/opt/runtime-bench/kubernetes}
GO=${RB_GO:-$(command -v go || echo /usr/local/go/bin/go)}
dest="$ROOT/$K8S_VERSION/bin"
log() { printf '== build-kubernetes: %s\n' "$*" >&2; }

k8s_cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet)

# Whether `BINARY --version` prints WANT. The output is read whole before it is searched: with
# pipefail, `BINARY --version | grep -q` fails whenever grep exits at its first match while the
# binary still writes (etcd prints three lines): SIGPIPE, status 141, a good cache judged stale.
reports() { # binary want
  local out
  out=$("$1" --version 2>/dev/null) || return 1
  [[ $out == *"$2"* ]]
}

have_all() {
  local c
  for c in "${k8s_cmds[@]}"; do
    reports "$dest/$c" "v$K8S_VERSION" || return 1
  done
  reports "$dest/etcd" "etcd Version: $ETCD_VERSION"
}

if have_all; then
  log "cached: $dest (kubernetes v$K8S_VERSION, etcd v$ETCD_VERSION)"
  exit 0
fi
[ -x "$GO" ] || { echo "build-kubernetes: no Go toolchain (install Go >= 1.24 or set RB_GO)" >&2; exit 1; }

work=$(mktemp -d /tmp/rb-build-kubernetes.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
minor=${K8S_VERSION#*.}
minor=${minor%%.*}
major=${K8S_VERSION%%.*}
staging_version="v0.${K8S_VERSION#*.}"

# --- Kubernetes -------------------------------------------------------------------------------
mkdir -p "$work/k8s"
cd "$work/k8s"
"$GO" mod init rb-build/kubernetes >/dev/null 2>&1
# The staging modules are exactly those k8s.io/kubernetes' own go.mod replaces with ./staging paths.
k8s_mod=$("$GO" mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
[ -f "$k8s_mod" ] || { echo "build-kubernetes: could not download k8s.io/kubernetes@v$K8S_VERSION" >&2; exit 1; }
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$k8s_mod" | sort -u)
((${#staging[@]} > 10)) || { echo "build-kubernetes: found no staging modules in $k8s_mod" >&2; exit 1; }
log "kubernetes v$K8S_VERSION: ${#staging[@]} staging modules at $staging_version"
{
  echo "require k8s.io/kubernetes v$K8S_VERSION"
  for m in "${staging[@]}"; do echo "replace $m => $m $staging_version"; done
} >>go.mod
pkgs=()
for c in "${k8s_cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
# Each package at the wanted version: a bare `go get PKG` would upgrade to the newest release.
"$GO" get "${pkgs[@]/%/@v$K8S_VERSION}"
# The version the binaries report (kubelet registers it on its Node; skew checks read it).
ver_ldflags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ver_ldflags+=" -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=$major -X $p.gitMinor=$minor"
  ver_ldflags+=" -X $p.gitTreeState=clean"
done
log "go build ${k8s_cmds[*]} -> $dest"
"$GO" build -trimpath -ldflags "-s -w$ver_ldflags" -o "$dest/" "${pkgs[@]}"

# --- etcd -------------------------------------------------------------------------------------
mkdir -p "$work/etcd"
cd "$work/etcd"
"$GO" mod init rb-build/etcd >/dev/null 2>&1
{
  echo "require go.etcd.io/etcd/server/v3 v$ETCD_VERSION"
  for m in api/v3 client/pkg/v3 client/v3 pkg/v3; do
    echo "replace go.etcd.io/etcd/$m => go.etcd.io/etcd/$m v$ETCD_VERSION"
  done
} >>go.mod
"$GO" get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
log "go build etcd v$ETCD_VERSION -> $dest/etcd"
"$GO" build -trimpath -ldflags "-s -w" -o "$dest/etcd" go.etcd.io/etcd/server/v3

have_all || { echo "build-kubernetes: built binaries do not report v$K8S_VERSION / etcd $ETCD_VERSION" >&2; exit 1; }
log "done: $dest"
