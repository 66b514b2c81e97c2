# shellcheck shell=bash
# The cache folder of Debian packages' files the image takes (sourced by
# scripts/image/kernel.sh and scripts/image/shim.sh, which define log and
# die): each entry is made in a work folder beside it and renamed into place
# when whole, so a folder that exists is complete, and the packages are
# fetched with `apt-get download` and unpacked, never installed.

PACKAGE_CACHE_ROOT="${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?HOME is not set; set AMPOULE_CACHE_DIR}/.cache}/ampoule}"

# package_work_begin: WORK (the entry being made, under the cache) and DL
# (the downloads), both removed when the script exits.
package_work_begin() {
  mkdir -p "$PACKAGE_CACHE_ROOT/image"
  WORK="$(mktemp -d "$PACKAGE_CACHE_ROOT/image/.work.XXXXXX")"
  DL="$(mktemp -d)"
  trap 'rm -rf "$WORK" "$DL"' EXIT
  # apt fetches as the unprivileged _apt user when run as root; the folder
  # must be its own or apt warns and fetches as root.
  [[ $EUID -eq 0 ]] && id _apt >/dev/null 2>&1 && chown _apt "$DL"
  return 0
}

# package_download PACKAGE=VERSION...: the .deb files into DL; exit 3 when
# the archive cannot be reached.
package_download() {
  log "downloading $*"
  (cd "$DL" && apt-get download -q "$@" >&2) || die 3 "could not download $* (is Debian's package archive reachable?)"
}

# package_work_commit DEST MARKER: WORK becomes DEST; another run that
# finished first (DEST/MARKER exists) is as good.
package_work_commit() {
  local dest=$1 marker=$2
  chmod 755 "$WORK"
  if ! mv -T "$WORK" "$dest" 2>/dev/null; then
    [[ -f $dest/$marker ]] || die 1 "$dest exists but is incomplete; remove it and run again"
    log "another run filled the cache first; using it"
  fi
}
