#!/usr/bin/env bash
# The sealed image rebuilt from this commit and compared byte for byte with
# the one made from the everyday build (docs/image.md, "Reproducible").
#
# Usage: scripts/image/reproduce.sh --reference BUILD --kernel AMPOULE_KERNEL
#   --reference BUILD  a build folder (bin/volent, bin/volent-init): the
#                      binaries of the image to compare with
#   --kernel FILE      the Ampoule kernel rebuilt by scripts/build-kernel.sh
#                      --strict (its own pin says it is reproducible; both
#                      images carry it)
#
# 1. compiles volent and volent-init in the reproducible build folder
#    (build-release/, the settings of scripts/build-host-tools.sh);
# 2. builds the image (examples/image) from them and the kernel;
# 3. builds the image from BUILD's binaries and the same kernel;
# 4. prints "MATCH image:NAME SHA256" or "MISMATCH image:NAME ..." for
#    disk.raw, disk.qcow2, disk.vhd, initrd, the unsigned UKI, OVMF's
#    variables with the keys, the predicted policies and the shim-chain ESP
#    (Debian's signed binaries, our configuration: all reproducible; both images signed
#    with one key set; a signature carries its time, so the signed UKI and
#    its ESP are compared through the policy, which holds the UKI's
#    Authenticode digest in PCR 4).
# Needs a clean checkout (both images carry the commit). Exit status: 0 all
# match; 1 a mismatch or a failed build; 2 usage or a dirty tree; 3 no kernel
# package to be had (scripts/image/kernel.sh's 3).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly REPRO_NAME=image-reproduce
# shellcheck source=scripts/reproducible.sh
source "$ROOT/scripts/reproducible.sh"

reference=""
kernel=""
while (($#)); do
  case "$1" in
    --reference) reference="${2:?--reference needs a build folder}"; shift 2 ;;
    --kernel) kernel="${2:?--kernel needs a file}"; shift 2 ;;
    *) repro_die "unknown argument '$1' (usage: --reference BUILD --kernel FILE)" 2 ;;
  esac
done
[[ -n $reference && -n $kernel ]] || repro_die "usage: --reference BUILD --kernel AMPOULE_KERNEL" 2
[[ -f $kernel ]] || repro_die "no rebuilt Ampoule kernel at $kernel (scripts/build-kernel.sh --strict makes it)" 2
repro_strict_check
repro_begin
[[ -f $REPRO_BUILD_DIR/build.ninja ]] || repro_step configure "configure (Release, reproducible)" repro_configure
repro_step compile-image "compile volent volent-init (-j$REPRO_JOBS)" repro_build volent volent-init

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A build folder's shape (bin/, share/ampoule/) for each side, with one kernel.
for side in rebuilt reference; do
  mkdir -p "$work/$side/bin" "$work/$side/share/ampoule"
  ln -s "$(readlink -f "$kernel")" "$work/$side/share/ampoule/ampoule.kernel"
done
ln -s "$REPRO_BUILD_DIR/bin/volent" "$REPRO_BUILD_DIR/bin/volent-init" "$work/rebuilt/bin/"
ln -s "$(readlink -f "$reference/bin/volent")" "$work/reference/bin/volent"
ln -s "$(readlink -f "$reference/bin/volent-init")" "$work/reference/bin/volent-init"

# One key set for both images (made by the first): the signed UKI differs by
# its signature's time only, and the prediction depends on the certificates.
build_image() {
  local rc=0
  bash "$ROOT/scripts/build-image.sh" --build "$1" --out "$2" --keys "$work/secureboot-dev-keys" >"$2.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 20 "$2.log" >&2
    ((rc == 3)) && exit 3
    repro_die "scripts/build-image.sh --build $1 exited $rc"
  fi
}
repro_log "image from the rebuilt binaries"
build_image "$work/rebuilt" "$work/rebuilt-image"
repro_log "image from $reference's binaries"
build_image "$work/reference" "$work/reference-image"

for name in disk.raw disk.qcow2 disk.vhd initrd uki.efi ovmf-vars-dev-only.fd policy-full-chain.json grub.cfg \
  esp-shim-chain.raw policy-shim-chain.json; do
  want=$(awk -v n="$name" '$2 == n { print $1 }' "$work/reference-image/SHA256SUMS")
  got=$(awk -v n="$name" '$2 == n { print $1 }' "$work/rebuilt-image/SHA256SUMS")
  if [[ -n $want && $want == "$got" ]]; then
    echo "MATCH image:$name $got"
  else
    echo "MISMATCH image:$name rebuilt $got, from $reference $want"
    REPRO_MISMATCHES=$((REPRO_MISMATCHES + 1))
  fi
done
if ((REPRO_MISMATCHES)); then
  for b in volent volent-init; do
    echo "  $b: rebuilt $(sha256sum <"$REPRO_BUILD_DIR/bin/$b" | cut -c1-16)…, $reference $(sha256sum <"$reference/bin/$b" | cut -c1-16)…"
  done
  exit 1
fi
repro_log "the image is reproducible: root hash $(sed -n 's/^ROOTHASH=//p' "$work/rebuilt-image/image.env")"
