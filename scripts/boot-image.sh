#!/usr/bin/env bash
# Boots the sealed image (scripts/build-image.sh) under QEMU's microvm: the
# PVH kernel, the initramfs with volent-init, the root disk read-only (its
# dm-verity tree checked by the init) and a second disk for /data, the
# control API forwarded to a loopback port of the host. docs/image.md.
#
# Usage: scripts/boot-image.sh [--image DIR] [--profile P] [--data FILE] [--seed DIR]
#                              [--api-port N] [--test heartbeat|checks|stop] [--disk FILE]
#                              [--set KEY=VALUE]... [--accel auto|kvm|tcg]
#                              [--timeout S] [--memory MB] [--esp FILE] [--vars FILE]
#   --image DIR     the image (default build/image)
#   --profile P     verity-only (default): microvm, the PVH kernel, the
#                   command line from image.env. full-chain: q35 with OVMF
#                   (Secure Boot, the image's keys enrolled) booting the
#                   signed UKI from the image's ESP, and a TPM (swtpm); the
#                   command line is the UKI's, so --set cannot change it.
#                   shim-chain: the same machine with Microsoft's keys
#                   (Debian's OVMF_VARS_4M.ms.fd) booting Debian's signed
#                   shim, GRUB and kernel from DIR/esp-shim-chain.raw
#   --data FILE     the /data disk (default DIR/data.img); made when missing:
#                   256 MiB, ext4, journaled (the node's crash safety relies
#                   on it)
#   --seed DIR      what the new /data disk starts with (DIR's files, as
#                   they are): the operator's first token, made with
#                   `volent credential create --data-dir DIR`; refused when
#                   the disk exists already
#   --api-port N    the host's 127.0.0.1:N is the guest's control API (port
#                   8470); default 8470
#   --test T        heartbeat: up, one heartbeat, power off; checks: the
#                   checks from inside (docs/image.md), power off; stop: the
#                   node started, then stopped as SIGTERM to PID 1 would
#   --disk FILE     another root disk than DIR/disk.raw (a tampered copy)
#   --set K=V       replace volent.K on the kernel command line (a wrong
#                   roothash); repeatable
#   --accel A       kvm, tcg or auto (default): KVM when usable, else TCG
#   --timeout S     stop QEMU after S seconds (default 600; 60 with --test)
#   --memory MB     guest memory (default 1024)
#   --esp FILE      UEFI profiles: another ESP than the profile's (an
#                   unsigned or altered UKI)
#   --vars FILE     UEFI profiles: the firmware's variables to start from
#                   (default DIR/ovmf-vars-dev-only.fd, or Microsoft's for
#                   shim-chain; copied, never written): another key set
#   --tpm DIR       UEFI profiles: the TPM's state (default DATA.tpm/, made
#                   by swtpm_setup when missing)
# The guest reaches the host as 10.0.2.2 (QEMU's user networking): a node's
# allowlist names that address for services on the host's loopback.
#
# image.env is read as data (scripts/image/image_env.sh), never run, and
# when the image has SHA256SUMS every file it lists must match first.
#
# Prints the console. Exit status: QEMU's (0 after the guest powered off),
# 124 when the timeout stopped it; 2 usage, a missing tool or image, or an
# image.env or SHA256SUMS refused.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/image/qemu.sh
source "$ROOT/scripts/image/qemu.sh"
# shellcheck source=scripts/image/image_env.sh
source "$ROOT/scripts/image/image_env.sh"
usage() { sed -n '/^# Usage:/,/^#   --memory/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { local rc=$1; shift; printf 'boot-image: %s\n' "$*" >&2; exit "$rc"; }

image="$ROOT/build/image"
data=""
seed=""
disk=""
api_port=8470
test_mode=""
accel=auto
timeout_s=""
memory=1024
profile=verity-only
esp=""
vars=""
tpm=""
sets=()
while (($#)); do
  case "$1" in
    --image) image="${2:?--image needs a folder}"; shift 2 ;;
    --data) data="${2:?--data needs a file}"; shift 2 ;;
    --seed) seed="${2:?--seed needs a folder}"; shift 2 ;;
    --disk) disk="${2:?--disk needs a file}"; shift 2 ;;
    --api-port) api_port="${2:?--api-port needs a port}"; shift 2 ;;
    --test) test_mode="${2:?--test needs heartbeat, checks or stop}"; shift 2 ;;
    --set) sets+=("${2:?--set needs KEY=VALUE}"); shift 2 ;;
    --accel) accel="${2:?--accel needs auto, kvm or tcg}"; shift 2 ;;
    --timeout) timeout_s="${2:?--timeout needs seconds}"; shift 2 ;;
    --memory) memory="${2:?--memory needs megabytes}"; shift 2 ;;
    --profile) profile="${2:?--profile needs verity-only, full-chain or shim-chain}"; shift 2 ;;
    --esp) esp="${2:?--esp needs a file}"; shift 2 ;;
    --vars) vars="${2:?--vars needs a file}"; shift 2 ;;
    --tpm) tpm="${2:?--tpm needs a folder}"; shift 2 ;;
    -h | --help) usage ;;
    *) echo "boot-image: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -z $test_mode || $test_mode =~ ^(heartbeat|checks|stop)$ ]] || die 2 "--test takes heartbeat, checks or stop, not '$test_mode'"
[[ $profile =~ ^(verity-only|full-chain|shim-chain)$ ]] ||
  die 2 "--profile takes verity-only, full-chain or shim-chain, not '$profile'"
if [[ $profile == verity-only && -n $esp$vars$tpm ]]; then
  die 2 "--esp, --vars and --tpm are for the UEFI profiles (full-chain, shim-chain)"
fi
if [[ $profile != verity-only ]] && ((${#sets[@]})) || [[ $profile != verity-only && -n $test_mode ]]; then
  die 2 "--set and --test: a UEFI profile's command line is signed (full-chain) or measured (shim-chain) with the image"
fi
[[ $accel =~ ^(auto|kvm|tcg)$ ]] || die 2 "--accel takes auto, kvm or tcg, not '$accel'"
[[ $api_port =~ ^[1-9][0-9]{0,4}$ ]] || die 2 "--api-port takes a port number, not '$api_port'"
[[ $memory =~ ^[1-9][0-9]*$ ]] || die 2 "--memory takes megabytes, not '$memory'"
timeout_s="${timeout_s:-$([[ -n $test_mode ]] && echo 60 || echo 600)}"
command -v "$QEMU" >/dev/null || die 2 "$QEMU not found; run 'sudo bash scripts/setup.sh' (package qemu-system-x86)"
[[ -f $image/image.env ]] || die 2 "no image in $image; build it: bash scripts/build-image.sh"
disk="${disk:-$image/disk.raw}"
data="${data:-$image/data.img}"
[[ -f $disk ]] || die 2 "no root disk $disk"

# image.env is outside the verified root: read as data, never run; the
# image's files checked against SHA256SUMS first (scripts/image/image_env.sh).
check_image_sums "$image" || die 2 "not booting $image"
read_image_env "$image/image.env" || die 2 "not booting $image"
cmdline="$CMDLINE"
for kv in "${sets[@]}"; do
  [[ $kv =~ ^[a-z_]+=[^[:space:]]*$ ]] || die 2 "--set takes KEY=VALUE, not '$kv'"
  key=${kv%%=*}
  cmdline="$(sed -E "s/(^| )volent\\.$key=[^ ]*//" <<<"$cmdline") volent.$kv"
done
[[ -n $test_mode ]] && cmdline+=" volent.test=$test_mode"
accel=$(resolve_accel "$accel")
tsc_khz=$(host_tsc_khz)
[[ $accel == tcg && -n $tsc_khz ]] && cmdline+=" tsc_early_khz=$tsc_khz"

if [[ ! -f $data ]]; then
  command -v mkfs.ext4 >/dev/null || die 2 "mkfs.ext4 not found (Debian package e2fsprogs)"
  [[ -z $seed || -d $seed ]] || die 2 "--seed $seed is not a folder"
  truncate -s 256M "$data.tmp"
  mkfs.ext4 -q -F -L volent-data -E root_owner=0:0 ${seed:+-d "$seed"} "$data.tmp"
  sync "$data.tmp"
  mv "$data.tmp" "$data"
  sync "$(dirname "$data")"
elif [[ -n $seed ]]; then
  die 2 "--seed: $data exists already; a seed is only for a new /data disk"
fi

if [[ $profile != verity-only ]]; then
  # shellcheck source=scripts/image/uefi.sh
  source "$ROOT/scripts/image/uefi.sh"
  if [[ $profile == full-chain ]]; then
    esp="${esp:-$image/esp-full-chain.raw}"
    vars="${vars:-$image/ovmf-vars-dev-only.fd}"
  else
    esp="${esp:-$image/esp-shim-chain.raw}"
    vars="${vars:-$OVMF_VARS_MICROSOFT}"
  fi
  tpm="${tpm:-$data.tpm}"
  boot_uefi "$esp" "$vars" "$tpm" "$disk" "$data" "$accel" "$memory" "$timeout_s" "$api_port"
  exit $?
fi

# The kernel names the disks in the order given: the root vda, /data vdb.
exec timeout -k 5 "$timeout_s" "$QEMU" -M "$MACHINE" -accel "$accel" -cpu max -m "$memory" -nographic -no-reboot \
  -kernel "$image/vmlinux" -initrd "$image/initrd" -append "$cmdline" \
  -drive "id=root,file=$disk,format=raw,if=none,readonly=on" -device virtio-blk-device,drive=root \
  -drive "id=data,file=$data,format=raw,if=none" -device virtio-blk-device,drive=data \
  -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$api_port-:8470" -device virtio-net-device,netdev=net0 \
  </dev/null
