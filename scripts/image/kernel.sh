#!/usr/bin/env bash
# The kernel the sealed image boots, and the modules it will load, from
# Debian's own kernel package (docs/image.md, docs/decisions/0039-microvm-boot.md).
#
# Usage: bash scripts/image/kernel.sh
#
# The package is the one Debian's linux-image-amd64 depends on for this
# machine's release (bookworm: linux-image-6.1.0-N-amd64, the signed build;
# its kernel is the one the later UEFI chain will verify). From it:
#   vmlinux          the kernel as an ELF with a PVH entry point (the Xen note
#                    XEN_ELFNOTE_PHYS32_ENTRY), which QEMU's microvm boots
#                    directly, without firmware or a real-mode setup stage
#   vmlinuz          the package's bzImage as shipped (the UEFI chain's, later)
#   config           the kernel's build configuration
#   modules/*.ko     the modules the image will need (MODULES below) and what
#                    they depend on; modules/load-order lists their file names,
#                    dependencies first (loading them is a later step)
#   kernel.env       PACKAGE, VERSION, RELEASE, PAYLOAD (its compression), PVH_ENTRY
#
# Why extract the vmlinux from the bzImage: Debian ships no vmlinux outside
# linux-image-*-dbg (an unstripped one, hundreds of megabytes, whose kernel
# is not byte for byte the signed one), and the kernel's
# scripts/extract-vmlinux is no Debian tool. The bzImage's setup header says
# exactly where its compressed payload is (payload_offset, payload_length,
# boot protocol 2.08+), so no scan for magic bytes is needed: the magic only
# names the format, and Debian's own decompressor (xz for bookworm) does the
# rest. The payload ends with the decompressed size (4 bytes, little endian),
# which checks the result.
#
# Cache: ${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ampoule}/image/<package version>-<module list hash>/,
# made in a temporary folder beside it and renamed into place when complete,
# so a folder that exists is whole and a second run returns at once.
#
# Progress goes to stderr; the last line on stdout is the cache folder, so
# `dir=$(bash scripts/image/kernel.sh | tail -n1)` finds it.
#
# Exit status: 0 ready; 1 the package did not hold what the image needs (no
# PVH note, a missing module, a payload that does not decompress); 2 a
# missing tool; 3 the kernel cannot be had here (apt does not know the
# package, or the download failed).
set -euo pipefail

# The modules the image will load, by module name; what each needs comes
# from its own .modinfo (depends=). crc32c_generic is named because ext4
# asks for it only as a soft dependency (crypto-crc32c), an alias that
# modprobe resolves and the image will have no modprobe.
readonly MODULES=(
  virtio_mmio     # microvm's virtio transport
  virtio_pci      # q35's virtio transport (the UEFI profiles)
  virtio_blk      # the disk: root, hash tree, /data
  squashfs        # the read-only root
  sha256_ssse3    # SHA-256 with the CPU's SHA or AVX2 instructions, for dm-verity
  dm_verity       # the root's integrity check
  ext4            # /data
  crc32c_generic  # ext4's metadata checksums
  virtio_net      # the network (the control API, the model, the tools)
  efivarfs        # the firmware's variables (SecureBoot), read by the node's report
)
readonly META=linux-image-amd64

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { local rc=$1; shift; printf 'kernel: %s\n' "$*" >&2; exit "$rc"; }

for tool in apt-cache apt-get dpkg-deb readelf od xz sha256sum; do
  command -v "$tool" >/dev/null || die 2 "'$tool' not found; run 'sudo bash scripts/setup.sh' (Debian 12)"
done

# field NAME: NAME's value in `apt-cache show` of the candidate on stdin.
field() { sed -n "s/^$1: //p" | head -n1; }

# The kernel package of this release and its version: the metapackage pins
# it exactly ("linux-image-6.1.0-N-amd64 (= VERSION)"), so one apt-cache
# call (about half a second) says both.
resolve_package() {
  local depends
  depends="$(apt-cache show --no-all-versions "$META" 2>/dev/null | field Depends)" || true
  PACKAGE="$(grep -oE 'linux-image-[0-9][^ ,]*-amd64' <<<"$depends" | head -n1)" || true
  [[ -n $PACKAGE ]] || die 3 "apt knows no '$META'; run 'apt-get update' (needs Debian's package archive)"
  VERSION="$(sed -n "s/.*$PACKAGE (= \([^)]*\)).*/\1/p" <<<"$depends")"
  if [[ -z $VERSION ]]; then
    VERSION="$(apt-cache show --no-all-versions "$PACKAGE" 2>/dev/null | field Version)"
  fi
  [[ -n $VERSION ]] || die 3 "apt knows '$META' but not '$PACKAGE'; run 'apt-get update'"
}

# u32 FILE OFFSET / u16 / u8: a little-endian integer of the file.
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' \n'; }
u16() { od -An -tu2 -j "$2" -N2 "$1" | tr -d ' \n'; }
u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' \n'; }
hex_at() { od -An -tx1 -j "$2" -N"$3" "$1" | tr -d ' \n'; }

# extract_vmlinux BZIMAGE OUT: the ELF inside BZIMAGE (Documentation/arch/x86/boot.rst).
extract_vmlinux() {
  local bz=$1 out=$2
  [[ "$(hex_at "$bz" $((0x202)) 4)" == 48647253 ]] || die 1 "$bz is not a bzImage (no 'HdrS' header)"
  local proto setup offset length start magic
  proto=$(u16 "$bz" $((0x206)))
  ((proto >= 0x208)) || die 1 "$bz: boot protocol $(printf '%x' "$proto") has no payload fields (needs 2.08+)"
  setup=$(u8 "$bz" $((0x1f1)))
  ((setup == 0)) && setup=4  # "if 0, the real value is 4"
  offset=$(u32 "$bz" $((0x248)))
  length=$(u32 "$bz" $((0x24c)))
  start=$(((setup + 1) * 512 + offset))
  magic=$(hex_at "$bz" "$start" 6)
  local -a decompress
  local body=$((length - 4))  # the size the kernel's build appends
  case "$magic" in
    fd377a585a00) PAYLOAD=xz; decompress=(xz -dc) ;;
    28b52ffd*) PAYLOAD=zstd; decompress=(zstd -dcq) ;;
    1f8b*) PAYLOAD=gzip; decompress=(gzip -dc); body=$length ;;  # gzip's own trailer holds the size
    *) die 1 "$bz: payload at $start starts with $magic, a format this script does not decompress (xz, zstd, gzip)" ;;
  esac
  command -v "${decompress[0]}" >/dev/null || die 2 "'${decompress[0]}' not found; install it to decompress a $PAYLOAD kernel"
  log "decompressing the $PAYLOAD payload ($length bytes at offset $start)"
  dd if="$bz" bs=64K iflag=skip_bytes,count_bytes skip="$start" count="$body" status=none |
    "${decompress[@]}" >"$out" ||
    die 1 "$bz: the $PAYLOAD payload did not decompress"
  local want got
  want=$(u32 "$bz" $((start + length - 4)))
  got=$(stat -c %s "$out")
  ((want == got)) || die 1 "$bz: decompressed $got bytes, the payload says $want"
  [[ "$(hex_at "$out" 0 4)" == 7f454c46 ]] || die 1 "$bz: the payload is not an ELF file"
}

# pvh_entry VMLINUX: the PVH entry address, from the Xen note of type 18
# (XEN_ELFNOTE_PHYS32_ENTRY); binutils 2.40 prints it as an unknown type.
pvh_entry() {
  readelf -n "$1" | awk '
    !done && $1 == "Xen" && ($0 ~ /\(0x00000012\)/ || $0 ~ /PHYS32_ENTRY/) { found = 1; next }
    found && /description data:/ {
      sub(/.*description data: */, "")
      n = split($0, b, " "); v = ""
      for (i = n; i >= 1; i--) v = v b[i]  # little endian
      sub(/^0+/, "", v); print v; done = 1
    }
    { found = 0 }'
}

# collect_modules TREE OUTDIR: MODULES and their dependencies from TREE
# (lib/modules/RELEASE) copied flat into OUTDIR, with OUTDIR/load-order.
collect_modules() {
  local tree=$1 outdir=$2 f n
  declare -gA KO=() SEEN=()
  ORDER=()
  while IFS= read -r f; do
    n=$(basename "$f" .ko)
    KO[${n//-/_}]=$f
  done < <(cd "$tree" && find kernel -name '*.ko')
  for n in "${MODULES[@]}"; do add_module "$tree" "$n"; done
  mkdir -p "$outdir"
  for n in "${ORDER[@]}"; do
    cp "$tree/${KO[$n]}" "$outdir/"
    basename "${KO[$n]}"
  done >"$outdir/load-order"
}

# add_module TREE NAME: NAME after its dependencies, once (the kernel's
# module graph has no cycles).
add_module() {
  local tree=$1 n=${2//-/_} deps d
  [[ -n ${SEEN[$n]:-} ]] && return 0
  SEEN[$n]=1
  [[ -n ${KO[$n]:-} ]] || die 1 "$PACKAGE has no module '$n' (built in? see its config)"
  deps=$(readelf -p .modinfo "$tree/${KO[$n]}" | sed -n 's/.*depends=//p')
  for d in ${deps//,/ }; do add_module "$tree" "$d"; done
  ORDER+=("$n")
}

# shellcheck source=scripts/image/package_cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/package_cache.sh"
resolve_package
# Keyed by the package version and the module list: another list is another folder.
MODULES_KEY="$(printf '%s\n' "${MODULES[@]}" | sha256sum | cut -c1-8)"
readonly DEST="$PACKAGE_CACHE_ROOT/image/$VERSION-$MODULES_KEY"
if [[ -f $DEST/kernel.env ]]; then
  log "$PACKAGE $VERSION: cached"
  echo "$DEST"
  exit 0
fi

package_work_begin
package_download "$PACKAGE=$VERSION"
deb=("$DL"/*.deb)

log "unpacking ${deb[0]##*/}"
mkdir "$WORK/tree"
dpkg-deb --fsys-tarfile "${deb[0]}" | tar -x -C "$WORK/tree" --wildcards './boot/*' './lib/modules/*' ||
  die 1 "could not unpack ${deb[0]}"
vmlinuz=("$WORK"/tree/boot/vmlinuz-*)
[[ -f ${vmlinuz[0]} ]] || die 1 "$PACKAGE holds no /boot/vmlinuz-*"
RELEASE="${vmlinuz[0]##*/vmlinuz-}"

extract_vmlinux "${vmlinuz[0]}" "$WORK/vmlinux"
PVH_ENTRY="$(pvh_entry "$WORK/vmlinux")"
[[ -n $PVH_ENTRY ]] || die 1 "$PACKAGE's vmlinux has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY): QEMU's microvm cannot boot it"
log "vmlinux $RELEASE: PVH entry at 0x$PVH_ENTRY"
cp "${vmlinuz[0]}" "$WORK/vmlinuz"
cp "$WORK/tree/boot/config-$RELEASE" "$WORK/config"

collect_modules "$WORK/tree/lib/modules/$RELEASE" "$WORK/modules"
log "modules (load order): $(tr '\n' ' ' <"$WORK/modules/load-order")"
rm -rf "$WORK/tree"

{
  echo "PACKAGE=$PACKAGE"
  echo "VERSION=$VERSION"
  echo "RELEASE=$RELEASE"
  echo "PAYLOAD=$PAYLOAD"
  echo "PVH_ENTRY=0x$PVH_ENTRY"
  echo "VMLINUX_SHA256=$(sha256sum "$WORK/vmlinux" | cut -d' ' -f1)"
} >"$WORK/kernel.env"
package_work_commit "$DEST" kernel.env
log "ready"
echo "$DEST"
