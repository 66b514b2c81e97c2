#!/usr/bin/env bash
# Builds the sealed image (docs/image.md): a squashfs root of exactly what
# the node needs under a dm-verity hash tree, the initramfs holding our PID 1
# and the modules it loads, and the kernel command line that names the root
# hash. From Debian packages and this repository only; the same commit and
# configuration give the same bytes (SOURCE_DATE_EPOCH, sorted inputs, fixed
# squashfs and verity options).
#
# Usage: scripts/build-image.sh [--build DIR] [--config DIR] [--out DIR] [--keys DIR]
#   --build DIR   where volent, volent-init and the Ampoule kernel were built
#                 (default build/: bin/volent, bin/volent-init,
#                 share/ampoule/ampoule.kernel)
#   --config DIR  the node's configuration, copied to /etc/volent in the root;
#                 must hold volent.yaml (default examples/image/)
#   --out DIR     where the image goes (default BUILD/image/)
#   --keys DIR    the Secure Boot keys that sign the UKI (default
#                 BUILD/secureboot-dev-keys/, made on first use: dev-only)
#
# Outputs in OUT:
#   disk.raw      the root disk: the squashfs, then its hash tree
#   disk.qcow2    the same disk for QEMU and most clouds (qemu-img)
#   disk.vhd      the same disk as a fixed VHD (qemu-img; footer made reproducible)
#   initrd        the initramfs: /init (volent-init) and /modules
#   vmlinux       Debian's kernel, as scripts/image/kernel.sh extracted it
#   image.env     ROOTHASH, SALT, DATA_BLOCKS, HASH_START, CMDLINE, versions:
#                 data, read by scripts/image/image_env.sh, never run
#   uki.efi, uki.signed.efi, esp-full-chain.raw, ovmf-vars-dev-only.fd,
#   secureboot-db.crt  the full-chain profile (scripts/image/uefi.sh)
#   policy-full-chain.json  its predicted PCRs (scripts/image/predict_pcrs.py)
#   grub.cfg, esp-shim-chain.raw, policy-shim-chain.json  the shim-chain
#                 profile: Debian's signed shim, GRUB and kernel
#   SHA256SUMS    the digest of every output
#   contents.txt  every file of the root with its size
# and prints the digests and the root payload's size.
#
# Exit status: 0 built; 1 a check failed (a shell or script in the root, a
# missing library); 2 usage or a missing tool or input; 3 no kernel (no
# package archive).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
log() { printf 'image: %s\n' "$*" >&2; }
die() { local rc=$1; shift; printf 'image: %s\n' "$*" >&2; exit "$rc"; }
usage() { sed -n '9,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

build="$ROOT/build"
config="$ROOT/examples/image"
out=""
keys=""
while (($#)); do
  case "$1" in
    --build) build="${2:?--build needs a folder}"; shift 2 ;;
    --config) config="${2:?--config needs a folder}"; shift 2 ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --keys) keys="${2:?--keys needs a folder}"; shift 2 ;;
    -h | --help) usage ;;
    *) echo "image: unknown argument '$1'" >&2; usage ;;
  esac
done
build="$(cd "$build" && pwd)" || die 2 "no build folder $build"
out="${out:-$build/image}"
for tool in mksquashfs unsquashfs veritysetup qemu-img python3 ldd sha256sum; do
  command -v "$tool" >/dev/null || die 2 "'$tool' not found; run 'sudo bash scripts/setup.sh' (squashfs-tools, cryptsetup-bin, qemu-utils)"
done
# shellcheck source=scripts/image/uefi.sh
source "$ROOT/scripts/image/uefi.sh"
uefi_tools_check
keys="${keys:-$build/secureboot-dev-keys}"
uefi_dev_keys "$keys"
volent="$build/bin/volent"
init="$build/bin/volent-init"
ampoule_kernel="$build/share/ampoule/ampoule.kernel"
for f in "$volent" "$init" "$ampoule_kernel" "$config/volent.yaml"; do
  [[ -f $f ]] || die 2 "missing $f (build: cmake --build build; the Ampoule kernel: bash scripts/test.sh builds it)"
done
if readelf -l "$init" | grep -q INTERP; then
  die 2 "$init is dynamically linked (a sanitizer build?); the initramfs has no loader"
fi

export LC_ALL=C TZ=UTC
umask 022
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
  SOURCE_DATE_EPOCH="$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)"
fi
export SOURCE_DATE_EPOCH

rc=0
kdir="$(bash "$ROOT/scripts/image/kernel.sh" | tail -n1)" || rc=$?
((rc == 0)) || die "$rc" "no kernel (scripts/image/kernel.sh exited $rc)"
# shellcheck source=/dev/null
source "$kdir/kernel.env"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/root"

# --- the root: exactly what the node needs ----------------------------------
log "staging the root"
mkdir -p "$stage"/{usr/bin,usr/lib/x86_64-linux-gnu,usr/lib64,usr/share/ampoule,etc/ssl/certs,etc/volent}
mkdir -p "$stage"/{dev,proc,sys,data,run,tmp}
ln -s usr/lib "$stage/lib"
ln -s usr/lib64 "$stage/lib64"
install -m 0755 "$volent" "$stage/usr/bin/volent"
install -m 0644 "$ampoule_kernel" "$stage/usr/share/ampoule/ampoule.kernel"
install -m 0644 /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/ca-certificates.crt"

# The node's shared libraries, as the dynamic loader resolves them here
# (Debian's own files), plus the TPM's device transport, which tpm2-tss
# opens by name at run time. Each under its soname.
add_libraries() {
  local bin=$1 line name path
  while IFS= read -r line; do
    if [[ $line =~ ^[[:space:]]*([^[:space:]]+)\ =\>\ (/[^[:space:]]+) ]]; then
      name=${BASH_REMATCH[1]} path=${BASH_REMATCH[2]}
      [[ -f $stage/usr/lib/x86_64-linux-gnu/$name ]] ||
        install -m 0644 "$(readlink -f "$path")" "$stage/usr/lib/x86_64-linux-gnu/$name"
    elif [[ $line =~ ^[[:space:]]*(/[^[:space:]]*ld-linux[^[:space:]]*) ]]; then
      install -m 0755 "$(readlink -f "${BASH_REMATCH[1]}")" "$stage/usr/lib64/${BASH_REMATCH[1]##*/}"
    elif [[ $line == *"not found"* ]]; then
      die 1 "$bin needs a library this machine lacks: $line"
    fi
  done < <(ldd "$bin")
}
add_libraries "$volent"
tcti=/usr/lib/x86_64-linux-gnu/libtss2-tcti-device.so.0
[[ -f $tcti ]] || die 2 "missing $tcti (Debian package libtss2-tcti-device0, from libtss2-dev)"
install -m 0644 "$(readlink -f "$tcti")" "$stage/usr/lib/x86_64-linux-gnu/${tcti##*/}"
add_libraries "$tcti"

# The configuration: regular files only, owned by root; a file others may
# not read (a key) becomes 0640 with the node's group (470: the node runs as
# its own user, src/volent/init/node_user.h), the rest is 0644.
node_gid=470
private=()
while IFS= read -r -d '' f; do
  [[ ${f#./} =~ ^[A-Za-z0-9._/-]+$ ]] || die 2 "config file name '${f#./}': only letters, digits and . _ - /"
  mode=0644
  if [[ $(( 0$(stat -c %a "$config/$f") & 04 )) -eq 0 ]]; then
    mode=0640
    private+=("etc/volent/${f#./}")
  fi
  install -D -m "$mode" "$config/$f" "$stage/etc/volent/${f#./}"
done < <(cd "$config" && find . -type f -print0 | sort -z)
{
  echo "NAME=Volent sealed image"
  echo "COMMIT=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "KERNEL_PACKAGE=$PACKAGE"
  echo "KERNEL_VERSION=$VERSION"
} >"$stage/etc/volent-image"
chmod 0644 "$stage/etc/volent-image"

# --- the squashfs, checked --------------------------------------------------
mkdir -p "$out"
log "making the squashfs"
# SOURCE_DATE_EPOCH (exported above) sets the creation time and every file's.
# Every entry root's (0:0), except the private configuration files, which
# are root:NODE_GID: a pseudo definition for each (mksquashfs's -all-root
# would override the group).
(cd "$stage" && find . -mindepth 1 -printf '%P %#m\n' | LC_ALL=C sort) | while read -r path mode; do
  group=0
  for p in "${private[@]}"; do [[ $p == "$path" ]] && group=$node_gid; done
  echo "$path m $mode 0 $group"
done >"$work/owners.pseudo"
mksquashfs "$stage" "$work/root.squashfs" -noappend -comp zstd -b 131072 -root-uid 0 -root-gid 0 -root-mode 0755 \
  -pf "$work/owners.pseudo" -no-xattrs -reproducible -quiet -no-progress >/dev/null
python3 "$ROOT/scripts/image/check_root.py" "$work/root.squashfs" "$out/contents.txt" ||
  die 1 "the root failed its checks (above)"

# --- dm-verity ----------------------------------------------------------------
# The salt is derived from the squashfs, so the same root gives the same
# tree; no superblock: the kernel command line carries every parameter.
salt="$(sha256sum "$work/root.squashfs" | cut -c1-64)"
size=$(stat -c %s "$work/root.squashfs")
((size % 4096 == 0)) || die 1 "the squashfs is $size bytes, not a multiple of 4096"
data_blocks=$((size / 4096))
veritysetup format --no-superblock --hash=sha256 --data-block-size=4096 --hash-block-size=4096 \
  --salt="$salt" "$work/root.squashfs" "$work/tree" >"$work/verity.out"
roothash="$(sed -n 's/^Root hash:[[:space:]]*//p' "$work/verity.out")"
[[ $roothash =~ ^[0-9a-f]{64}$ ]] || die 1 "veritysetup printed no root hash: $(cat "$work/verity.out")"
cat "$work/root.squashfs" "$work/tree" >"$work/disk.raw"
rm "$work/root.squashfs"

# --- the disk in three formats ------------------------------------------------
log "writing the disk images"
mv "$work/disk.raw" "$out/disk.raw"
qemu-img convert -q -f raw -O qcow2 "$out/disk.raw" "$out/disk.qcow2"
qemu-img convert -q -f raw -O vpc -o subformat=fixed,force_size=on "$out/disk.raw" "$out/disk.vhd"
python3 "$ROOT/scripts/image/vhd_footer.py" "$out/disk.vhd" "$SOURCE_DATE_EPOCH" "$roothash"

# --- boot: the initramfs and the kernel ------------------------------------------
modules=()
while IFS= read -r m; do modules+=("modules/$m=$kdir/modules/$m"); done <"$kdir/modules/load-order"
python3 "$ROOT/scripts/image/initramfs.py" "$out/initrd" "init=$init" "modules/load-order=$kdir/modules/load-order" \
  "${modules[@]}"
ln -f "$kdir/vmlinux" "$out/vmlinux" 2>/dev/null || cp "$kdir/vmlinux" "$out/vmlinux"

cmdline="console=ttyS0 loglevel=4 panic=-1 volent.roothash=$roothash volent.salt=$salt volent.data_blocks=$data_blocks"
cmdline+=" volent.hash_start=$data_blocks volent.ip=10.0.2.15/24 volent.gateway=10.0.2.2"
{
  echo "ROOTHASH=$roothash"
  echo "SALT=$salt"
  echo "DATA_BLOCKS=$data_blocks"
  echo "HASH_START=$data_blocks"
  echo "CMDLINE='$cmdline'"
  echo "KERNEL_PACKAGE=$PACKAGE"
  echo "KERNEL_VERSION=$VERSION"
  echo "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
  echo "SECUREBOOT_KEYS=dev-only"
} >"$out/image.env"
# --- the UEFI profiles ---------------------------------------------------------
# full-chain: the command line, with the root hash, inside a signed UKI.
uefi_full_chain "$out" "$kdir" "$cmdline volent.keys=dev-only" "$keys"
# shim-chain: Debian's signed shim, GRUB and kernel; the root hash in GRUB's
# configuration, which GRUB measures.
rc=0
loaders="$(bash "$ROOT/scripts/image/shim.sh" | tail -n1)" || rc=$?
((rc == 0)) || die "$rc" "no shim or GRUB (scripts/image/shim.sh exited $rc)"
uefi_shim_chain "$out" "$kdir" "$loaders" "$cmdline"
# The PCRs an auditor holds the booted node's quote against, predicted from
# what was just built (scripts/image/predict_pcrs.py).
software=(--volent-sha256 "$(sha256sum "$volent" | cut -d' ' -f1)"
          --kernel-sha256 "$(sha256sum "$ampoule_kernel" | cut -d' ' -f1)")
python3 "$ROOT/scripts/image/predict_pcrs.py" full-chain --uki "$out/uki.signed.efi" --vars "$out/ovmf-vars-dev-only.fd" \
  --roothash "$roothash" "${software[@]}" -o "$out/policy-full-chain.json" || die 1 "the PCR prediction failed"
python3 "$ROOT/scripts/image/predict_pcrs.py" shim-chain --shim "$loaders/shimx64.efi" --grub "$loaders/grubx64.efi" \
  --kernel "$kdir/vmlinuz" --grub-cfg "$out/grub.cfg" --initrd "$out/initrd" --roothash "$roothash" "${software[@]}" \
  -o "$out/policy-shim-chain.json" || die 1 "the shim-chain PCR prediction failed"
(cd "$out" && sha256sum disk.raw disk.qcow2 disk.vhd initrd vmlinux image.env uki.efi uki.signed.efi \
  esp-full-chain.raw ovmf-vars-dev-only.fd secureboot-db.crt policy-full-chain.json grub.cfg esp-shim-chain.raw \
  policy-shim-chain.json >SHA256SUMS)

payload=$((data_blocks * 4096))
tree=$(stat -c %s "$work/tree")
log "root payload: $payload bytes ($(awk -v b=$payload 'BEGIN { printf "%.1f", b / 1048576 }') MiB squashfs, zstd) + $tree bytes of hash tree; contents: $out/contents.txt"
log "root hash: $roothash"
sed 's/^/image: sha256 /' "$out/SHA256SUMS" >&2
echo "$out"
