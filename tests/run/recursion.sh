#!/usr/bin/env bash
# Deep recursion in the guest runtimes ends in the guest's own catchable error
# (RecursionError, QuickJS's stack overflow RangeError), never in an engine
# trap: runs runtimes/test/recursion.{py,js} (13 cases each) through
# `ampoule run` on the default kernel. Usage: recursion.sh AMPOULE
set -uo pipefail
ampoule="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
kernel="$("$ampoule" kernel path 2>/dev/null)"
if [[ ! -f "$kernel" ]]; then
  echo "skipped: no kernel at '$kernel' (scripts/test.sh packs one; or set AMPOULE_KERNEL)"
  exit 0
fi
failed=0
for prog in recursion.py recursion.js; do
  out="$("$ampoule" run "$root/runtimes/test/$prog" --kernel "$kernel" 2>&1)"
  status=$?
  printf '%s\n' "$out" | tail -n 1
  if ((status != 0)) || ! grep -q ', 0 failed$' <<<"$out"; then
    echo "FAIL: $prog exited $status:"
    printf '%s\n' "$out"
    failed=1
  fi
done
exit $failed
