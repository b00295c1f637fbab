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
