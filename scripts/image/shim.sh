#!/usr/bin/env bash
# Fetches the shim-chain's boot loaders from Debian's package archive, the
# binaries Microsoft's UEFI CA (shim) and Debian's key (GRUB) signed:
#   shimx64.efi   shim-signed's /usr/lib/shim/shimx64.efi.signed
#   grubx64.efi   grub-efi-amd64-signed's
#                 /usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
#   loaders.env   SHIM_VERSION, GRUB_VERSION
# (Debian's kernel comes from scripts/image/kernel.sh: its vmlinuz is the
# signed one.) Downloaded with `apt-get download` and unpacked with dpkg-deb,
# never installed: installing shim-signed would run its boot-loader scripts
# on this machine.
#
# Cache: ${AMPOULE_CACHE_DIR:-~/.cache/ampoule}/image/loaders-<shim>-<grub>/,
# made beside it and renamed into place when whole. The last line on stdout
# is the folder. Exit status: 0 ready; 1 a package lacked its file; 2 a
# missing tool; 3 the packages cannot be had here.
set -euo pipefail

log() { printf 'shim: %s\n' "$*" >&2; }
die() { local rc=$1; shift; printf 'shim: %s\n' "$*" >&2; exit "$rc"; }
for tool in apt-cache apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || die 2 "'$tool' not found (Debian 12)"
done
version() { apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n1; }
SHIM_VERSION="$(version shim-signed)"
GRUB_VERSION="$(version grub-efi-amd64-signed)"
[[ -n $SHIM_VERSION && -n $GRUB_VERSION ]] ||
  die 3 "apt knows no shim-signed or grub-efi-amd64-signed; run 'apt-get update' (needs Debian's package archive)"
# shellcheck source=scripts/image/package_cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/package_cache.sh"
readonly DEST="$PACKAGE_CACHE_ROOT/image/loaders-${SHIM_VERSION//[:~+]/_}-${GRUB_VERSION//[:~+]/_}"
if [[ -f $DEST/loaders.env ]]; then
  log "shim $SHIM_VERSION, GRUB $GRUB_VERSION: cached"
  echo "$DEST"
  exit 0
fi
package_work_begin
package_download "shim-signed=$SHIM_VERSION" "grub-efi-amd64-signed=$GRUB_VERSION"
mkdir "$WORK/tree"
for deb in "$DL"/*.deb; do dpkg-deb -x "$deb" "$WORK/tree" || die 1 "could not unpack $deb"; done
cp "$WORK/tree/usr/lib/shim/shimx64.efi.signed" "$WORK/shimx64.efi" 2>/dev/null || die 1 "shim-signed holds no shimx64.efi.signed"
cp "$WORK/tree/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" "$WORK/grubx64.efi" 2>/dev/null ||
  die 1 "grub-efi-amd64-signed holds no grubx64.efi.signed"
rm -rf "$WORK/tree"
printf 'SHIM_VERSION=%s\nGRUB_VERSION=%s\n' "$SHIM_VERSION" "$GRUB_VERSION" >"$WORK/loaders.env"
package_work_commit "$DEST" loaders.env
log "ready"
echo "$DEST"
