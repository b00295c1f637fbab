# Shared by scripts/setup.sh and scripts/setup-test.sh (sourced, not run).

log() { printf '== %s: %s\n' "${setup_name:-setup}" "$*" >&2; }

# apt-get install of the packages not installed yet; one `apt-get update` only when some are missing.
# dpkg's fsync after every file is most of the time of a few hundred small packages (Debian's npm);
# without it (--force-unsafe-io) an install cut short by a crash is repaired by running it again.
apt_install_missing() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io "${missing[@]}" >/dev/null
}

# The `runtime-bench` command on PATH: a wrapper that runs this checkout's CLI with the node found
# now (absolute paths, so it works from any directory and under sudo's secure_path). The entry
# (runner/bin/runtime-bench.js) starts in a tenth of a second; `pnpm exec` adds most of a second.
# Usage: write_cli_wrapper <dest> <repo> <node>
write_cli_wrapper() {
  local dest=$1 repo=$2 node=$3 tmp
  # A path as one single-quoted sh word (a ' inside becomes '\'').
  sh_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
  tmp=$(mktemp "$(dirname "$dest")/.runtime-bench.XXXXXX")
  {
    echo '#!/bin/sh'
    echo "# Written by scripts/setup.sh: the runtime-bench CLI of one checkout, from any directory."
    echo "exec $(sh_quote "$node") $(sh_quote "$repo/runner/bin/runtime-bench.js") \"\$@\""
  } >"$tmp"
  chmod 0755 "$tmp"
  mv -f "$tmp" "$dest"
}
