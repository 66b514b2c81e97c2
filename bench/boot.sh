#!/usr/bin/env bash
# The sealed image's boot time (docs/image.md, "Boot time").
#
#   bash bench/boot.sh
#
# Builds the image when build/image is missing (scripts/build-image.sh),
# then boots, BOOT_RUNS times each, interleaved (bench/boot.py): the bare
# kernel with only volent-init (the floor), the image to its heartbeat, and
# the image until its node answers /healthz; then, when the image has the
# full-chain profile, OVMF with a signed UKI of the kernel and volent-init
# alone (the UEFI floor), and the full-chain and shim-chain images until
# their node answers, with where the time went (the console's first line of
# each step, timed on the host). Prints the guest's
# CLOCK_BOOTTIME at the heartbeat and the wall time, median and spread, the
# ratio to the bare kernel, and the root payload's size.
#
# The accelerator is KVM when /dev/kvm is usable, TCG otherwise, and the
# figures say which: a TCG figure is the emulator's, and a KVM figure needs
# a KVM host. The goal is a heartbeat at 1.0 s of guest time under TCG.
#
# Environment: BOOT_RUNS (default 3), BUILD (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly RUNS="${BOOT_RUNS:-3}"
readonly BUILD="${BUILD:-$ROOT/build}"
# shellcheck source=scripts/image/qemu.sh
source "$ROOT/scripts/image/qemu.sh"
# shellcheck source=scripts/image/image_env.sh
source "$ROOT/scripts/image/image_env.sh"

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "boot: BOOT_RUNS must be a positive number" >&2; exit 2; }
if [[ ! -f $BUILD/image/image.env ]]; then
  bash "$ROOT/scripts/build-image.sh" --build "$BUILD" >/dev/null
fi
accel=$(resolve_accel auto)
echo "boot: accelerator $accel$([[ $accel == tcg ]] && echo " (no usable KVM here: a KVM figure needs a KVM host)")"
echo "boot: $(nproc) cores, $(awk '/^model name/ { sub(/^[^:]*: /, ""); print; exit }' /proc/cpuinfo)"
# The UEFI floor (scripts/image/uefi.sh): OVMF, Secure Boot, a TPM, and a
# signed UKI of the kernel and volent-init alone that powers off at its
# heartbeat. Only when the image has the full-chain profile and OVMF is here.
floor=-
if [[ -f $BUILD/image/esp-full-chain.raw && -f $BUILD/secureboot-dev-keys/db.key ]]; then
  log() { :; }
  die() { echo "boot: $2" >&2; exit "$1"; }
  # shellcheck source=scripts/image/uefi.sh
  source "$ROOT/scripts/image/uefi.sh"
  kdir="$(bash "$ROOT/scripts/image/kernel.sh" 2>/dev/null | tail -n1)"
  SOURCE_DATE_EPOCH=0 floor="$(uefi_floor_esp "$(mktemp -d)" "$BUILD/bin/volent-init" "$kdir" "$BUILD/secureboot-dev-keys")"
fi
python3 "$ROOT/bench/boot.py" "$BUILD/image" "$BUILD/bin/volent-init" "$RUNS" "$floor"
read_image_env "$BUILD/image/image.env" || exit 2  # data, never run
payload=$((DATA_BLOCKS * 4096))
echo "root payload: $payload bytes ($(awk -v b=$payload 'BEGIN { printf "%.1f", b / 1048576 }') MiB squashfs, zstd;" \
  "contents in $BUILD/image/contents.txt)"
