#!/usr/bin/env bash
# The first slice of the sealed image, booted: Debian's kernel under QEMU's
# microvm runs volent-init as PID 1, which says its heartbeat and powers the
# machine off (scripts/image/boot.sh, docs/image.md).
#
#   tests/image/boot_test.sh --init PATH
#
# Checks, on the console and QEMU's exit: one "volent-init: heartbeat S.mmm"
# line, no "volent-init: error" line, the power-off said and done (the
# kernel's "reboot: Power down", QEMU's exit status 0 within the timeout).
# A boot that hangs (QEMU stopped by its timeout) is tried once more: a
# small fraction of TCG boots hang, and that is QEMU's, not the image's.
#
# Prints "skipped: REASON" when QEMU, the kernel or a static init cannot be
# had; exits non-zero on a failure.
set -u

init=""
while [ $# -gt 0 ]; do
  case "$1" in
    --init) init="$2"; shift 2 ;;
    *) echo "usage: $0 --init PATH" >&2; exit 2 ;;
  esac
done
[ -n "$init" ] || { echo "usage: $0 --init PATH" >&2; exit 2; }
[ -f "$init" ] || { echo "skipped: no volent-init at $init"; exit 0; }
command -v qemu-system-x86_64 >/dev/null ||
  { echo "skipped: qemu-system-x86_64 not found (Debian package qemu-system-x86: scripts/setup.sh)"; exit 0; }
if readelf -l "$init" | grep -q INTERP; then
  echo "skipped: $init is dynamically linked (sanitizer builds make it so); the initramfs has no loader"
  exit 0
fi

here="$(cd "$(dirname "$0")" && pwd)"
scripts="$here/../../scripts/image"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bash "$scripts/kernel.sh" >"$work/kernel.out" 2>"$work/kernel.err"
code=$?
if [ "$code" = 3 ]; then
  echo "skipped: no kernel: $(tail -n1 "$work/kernel.err")"
  exit 0
fi
[ "$code" = 0 ] || { cat "$work/kernel.err"; echo "FAIL: scripts/image/kernel.sh exited $code"; exit 1; }
kernel="$(tail -n1 "$work/kernel.out")/vmlinux"

for attempt in 1 2; do
  bash "$scripts/boot.sh" --init "$init" --kernel "$kernel" >"$work/boot.out" 2>&1
  code=$?
  [ "$code" = 4 ] && [ "$attempt" = 1 ] && { echo "note: the boot hung; trying once more"; continue; }
  break
done
cat "$work/boot.out"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
[ "$code" = 0 ] || fail "scripts/image/boot.sh exited $code (0: heartbeat and power-off; 1: failed; 4: hung)"
beats=$(grep -cE '^volent-init: heartbeat [0-9]+\.[0-9]{3}$' "$work/boot.out")
[ "$beats" = 1 ] || fail "expected one heartbeat line, found $beats"
grep -q '^volent-init: error' "$work/boot.out" && fail "volent-init reported an error (above)"
grep -q '^volent-init: powering off$' "$work/boot.out" || fail "volent-init did not say it powers off"
grep -q 'reboot: Power down' "$work/boot.out" || fail "the kernel did not power down"
grep -q 'powered off$' "$work/boot.out" || fail "boot.sh did not see QEMU exit after the power-off"

echo "boot_test: $((failures == 0 ? 1 : 0)) passed, $((failures == 0 ? 0 : 1)) failed"
[ "$failures" = 0 ]
