#!/usr/bin/env bash
# The main job on the embedded default: bring up the local containerd stack with every OCI runtime
# found on this host, run the quick suite, print the table and write the result under data/.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export PATH=/usr/local/bin:$PATH
rb() { pnpm exec runtime-bench "$@"; }
rb stack up --fix-host
rb run --config "${RB_CONFIG:-examples/quick.yaml}" --data-dir "${RB_DATA_DIR:-data}"
