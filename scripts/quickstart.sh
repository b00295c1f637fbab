#!/usr/bin/env bash
# The main job on the embedded default: bring up the local containerd stack with every OCI runtime
# found on this host, run the quick suite, write the result under data/ and end with the verdict
# (each runtime against runc, per benchmark family).
#   bash scripts/quickstart.sh [--name STACK] [--table]
# --name runs on a stack of that name instead of "default" (several side by side); --table also
# prints the full table of every benchmark × target × metric.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export PATH=/usr/local/bin:$PATH
rb() { pnpm exec runtime-bench "$@"; }

name=default
run_args=()
while (($#)); do
  case $1 in
    --name)
      [[ ${2:-} =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "quickstart: --name needs a stack name like ci-1" >&2; exit 2; }
      name=$2
      shift 2
      ;;
    --table) run_args+=(--table); shift ;;
    *) echo "quickstart: unknown argument $1 (usage: quickstart [--name STACK] [--table])" >&2; exit 2 ;;
  esac
done

config=${RB_CONFIG:-examples/quick.yaml}
if [ "$name" != default ]; then
  # The same suite on the named stack: the config's "stack: default" targets point to it.
  named=$(mktemp --suffix=.yaml)
  trap 'rm -f "$named"' EXIT
  sed -E "s/^([[:space:]-]*stack:)[[:space:]]*default([[:space:]]|$)/\1 $name\2/" "$config" >"$named"
  config=$named
fi
rb stack up --stack "$name" --fix-host
rb run --config "$config" --data-dir "${RB_DATA_DIR:-data}" "${run_args[@]}"
