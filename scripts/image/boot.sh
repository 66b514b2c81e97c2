#!/usr/bin/env bash
# Boots the first slice of the sealed image under QEMU's microvm: Debian's
# kernel (scripts/image/kernel.sh) with an initramfs holding only /init =
# volent-init, which says a heartbeat and powers the machine off
# (volent.test=heartbeat). docs/image.md, docs/decisions/0039-microvm-boot.md.
#
# Usage: bash scripts/image/boot.sh [--init FILE] [--kernel VMLINUX] [--runs N]
#                                   [--accel auto|kvm|tcg] [--quiet]
#   --init FILE      the PID 1 (default: build/bin/volent-init); must be static
#   --kernel FILE    a vmlinux with a PVH entry (default: kernel.sh's, fetched
#                    and cached on first use)
#   --runs N         boot N times (default 1); the wall times, their median and
#                    spread (max - min) are printed at the end
#   --accel A        kvm, tcg, or auto (default): KVM when /dev/kvm is usable,
#                    i.e. opens read-write and is served by kvm_intel or
#                    kvm_amd (a paravirtual KVM such as kvm_pvm cannot run a
#                    stock guest), else TCG
#   --quiet          show a run's console only when it failed
#
# Every QEMU runs under `timeout` (BOOT_TIMEOUT seconds, default 60): a small
# fraction of TCG boots hang.
#
# Exit status: 0 every run showed the heartbeat and QEMU exited by itself
# after the guest powered off; 1 a run failed otherwise (its console says
# why); 2 usage error or a missing tool; 3 no kernel to be had (kernel.sh's
# 3); 4 a QEMU hung and was stopped by the timeout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly TIMEOUT="${BOOT_TIMEOUT:-60}"
# shellcheck source=scripts/image/qemu.sh
source "$ROOT/scripts/image/qemu.sh"
# panic=-1: a kernel panic reboots at once, which -no-reboot turns into
# QEMU's exit, so a failed boot ends now instead of at the timeout.
readonly APPEND="console=ttyS0 panic=-1 volent.test=heartbeat"

usage() { sed -n '7,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
log() { printf 'boot: %s\n' "$*"; }
die() { local rc=$1; shift; printf 'boot: %s\n' "$*" >&2; exit "$rc"; }

init="$ROOT/build/bin/volent-init"
kernel=""
runs=1
accel=auto
quiet=0
while (($#)); do
  case "$1" in
    --init) init="${2:?--init needs a file}"; shift 2 ;;
    --kernel) kernel="${2:?--kernel needs a file}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --accel) accel="${2:?--accel needs auto, kvm or tcg}"; shift 2 ;;
    --quiet) quiet=1; shift ;;
    -h | --help) usage ;;
    *) echo "boot: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die 2 "--runs takes a positive number, not '$runs'"
[[ $accel =~ ^(auto|kvm|tcg)$ ]] || die 2 "--accel takes auto, kvm or tcg, not '$accel'"
command -v "$QEMU" >/dev/null || die 2 "$QEMU not found; run 'sudo bash scripts/setup.sh' (package qemu-system-x86)"
command -v python3 >/dev/null || die 2 "python3 not found; run 'sudo bash scripts/setup.sh'"
[[ -f $init ]] || die 2 "no init at $init; build it: cmake --build build --target volent-init"
if readelf -l "$init" 2>/dev/null | grep -q 'INTERP'; then
  die 2 "$init is dynamically linked (a sanitizer build?); the initramfs has no loader: use a static build"
fi

if [[ -z $kernel ]]; then
  rc=0
  dir="$(bash "$ROOT/scripts/image/kernel.sh" | tail -n1)" || rc=$?
  ((rc == 0)) || die "$rc" "no kernel (scripts/image/kernel.sh exited $rc)"
  kernel="$dir/vmlinux"
fi
[[ -f $kernel ]] || die 2 "no kernel at $kernel"

accel=$(resolve_accel "$accel")
append=$APPEND
tsc_khz=$(host_tsc_khz)
if [[ $accel == tcg && -n $tsc_khz ]]; then
  append+=" tsc_early_khz=$tsc_khz"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$ROOT/scripts/image/initramfs.py" "$work/initrd" "init=$init"
log "kernel $kernel"
log "initramfs $(stat -c %s "$work/initrd") bytes, sha256 $(sha256sum "$work/initrd" | cut -c1-16)… (/init = $init)"
log "accel $accel; command line: $append"

# boot_once N: one boot; sets WALL (seconds) and BEAT (the guest's heartbeat
# time), and returns 0, 1 or 4 as the script's exit status says.
boot_once() {
  local n=$1 console="$work/console.$1" t0 t1 rc=0
  t0=$(date +%s%N)
  timeout -k 5 "$TIMEOUT" "$QEMU" -M "$MACHINE" -accel "$accel" -cpu max -m 256 -nographic -no-reboot \
    -kernel "$kernel" -initrd "$work/initrd" -append "$append" </dev/null 2>&1 | tr -d '\r' >"$console" ||
    rc=${PIPESTATUS[0]}
  t1=$(date +%s%N)
  WALL=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", ns / 1e9 }')
  BEAT=$(sed -n 's/^volent-init: heartbeat \([0-9.]*\)$/\1/p' "$console" | head -n1)
  local verdict=0 why=""
  if ((rc == 124 || rc == 137)); then
    verdict=4 why="QEMU did not exit within ${TIMEOUT}s and was stopped (a TCG boot can hang now and then)"
  elif ((rc != 0)); then
    verdict=1 why="QEMU exited with status $rc"
  elif [[ -z $BEAT ]]; then
    verdict=1 why="no 'volent-init: heartbeat' line on the console"
  elif ! grep -q 'reboot: Power down' "$console"; then
    verdict=1 why="QEMU exited but the guest did not power off (a panic reboots: see the console)"
  fi
  if ((verdict != 0 || quiet == 0)); then cat "$console"; fi
  if ((verdict == 0)); then
    log "run $n/$runs: heartbeat at ${BEAT}s guest time, ${WALL}s wall, powered off"
  else
    log "run $n/$runs: FAILED after ${WALL}s wall: $why"
  fi
  return $verdict
}

walls=()
for ((i = 1; i <= runs; i++)); do
  rc=0
  boot_once "$i" || rc=$?
  ((rc == 0)) || exit "$rc"
  walls+=("$WALL")
done
sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
median=$(awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' <<<"$sorted")
spread=$(awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f", hi - lo }' <<<"$sorted")
log "wall times (s): ${walls[*]}; median ${median}, spread ${spread} ($accel)"
