#!/usr/bin/env bash
# `ampoule demo refund` and `ampoule demo grader` from the outside
# (docs/demo.md): each demo runs in a temporary folder and its
# printed story and the files it leaves are checked independently of the
# demo's own summary.
#
#   tests/demo/demo_cli.sh refund|grader --ampoule BIN [--kernel K]
#
# refund: exit 0; the gate's decisions printed in the order SEND, REFUSE,
#   HOLD, ESCALATE; the outbox holds exactly one message for the refund's
#   idempotency key, and the decision log exactly one send for it; every
#   held-out order matches the reference. grader: exit 0; the lab's replay
#   is REPLAY OK with the vendor's score; the receipt checked against the
#   other episode is FAILED and the episode mismatch is caught; a replay of
#   it on the other episode fails too. Both: usage errors are exit 2.
#
# Prints `ok`/`FAIL` per check and `NAME: N passed, N failed`; exit 1 on any
# failure; `skipped: REASON` (exit 0) when no kernel is found.
set -uo pipefail

MODE="${1:-}"; shift || true
AMPOULE="" KERNEL="${AMPOULE_KERNEL:-}"
while (($#)); do
  case "$1" in
    --ampoule) AMPOULE="${2:-}"; shift 2 || break ;;
    --kernel) KERNEL="${2:-}"; shift 2 || break ;;
    *) MODE="" ; break ;;
  esac
done
if [[ "$MODE" != refund && "$MODE" != grader ]] || [[ -z "$AMPOULE" ]]; then
  echo "usage: $0 refund|grader --ampoule BIN [--kernel K]" >&2
  exit 2
fi
[[ -x "$AMPOULE" ]] || { echo "skipped: ampoule binary $AMPOULE not found"; exit 0; }
if [[ -z "$KERNEL" ]]; then KERNEL="$("$AMPOULE" kernel path 2>/dev/null)" || KERNEL=""; fi
if [[ -z "$KERNEL" || ! -f "$KERNEL" ]]; then
  echo "skipped: no kernel found by 'ampoule kernel path'; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ampoule-demo-test-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() { local name="$1"; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
finish() {
  echo "demo_$MODE: $passed passed, $failed failed"
  ((failed == 0)) || { echo "--- the demo's output:"; cat "$WORK/out.txt"; exit 1; }
  exit 0
}

# --- usage ---------------------------------------------------------------------
"$AMPOULE" demo "$MODE" --help >/dev/null; check "--help is exit 0" test $? -eq 0
"$AMPOULE" demo "$MODE" --frobnicate >/dev/null 2>&1; check "unknown option is exit 2" test $? -eq 2
mkdir -p "$WORK/busy" && touch "$WORK/busy/file"
"$AMPOULE" demo "$MODE" --dir "$WORK/busy" --kernel "$KERNEL" >/dev/null 2>&1
check "--dir that is not empty is exit 2" test $? -eq 2
"$AMPOULE" demo "$MODE" --dir "$WORK/nokernel" --kernel "$WORK/missing.kernel" >/dev/null 2>&1
check "a missing kernel is exit 2" test $? -eq 2

# --- the demo --------------------------------------------------------------------
DIR="$WORK/demo"
"$AMPOULE" demo "$MODE" --dir "$DIR" --kernel "$KERNEL" >"$WORK/out.txt" 2>&1
check "demo $MODE exits 0" test $? -eq 0
has_line() { grep -qxF -- "$1" "$WORK/out.txt"; }
check "prints the working folder" has_line "ampoule demo $MODE: working folder $DIR"

if [[ "$MODE" == refund ]]; then
  decisions="$(grep -xE '    (SEND|REFUSE|HOLD|ESCALATE)' "$WORK/out.txt" | tr -d ' ' | tr '\n' ' ')"
  check "decisions in order: SEND REFUSE HOLD ESCALATE (got: $decisions)" \
    test "$decisions" == "SEND REFUSE HOLD ESCALATE "
  for d in "SEND, exit 0" "REFUSE, exit 1" "HOLD, exit 3" "ESCALATE, exit 4"; do
    check "'$d' as expected" has_line "  -> $d: as expected"
  done
  check "the hold lists the difference" \
    grep -qE '^    reason: .*amount.*"1[0-9]+\.[0-9]{2}".*"[0-9]+\.[0-9]{2}"' "$WORK/out.txt"
  key_files="$(grep -lE '"idempotency_key": *"refund:A-1002"' "$DIR"/outbox/*.json 2>/dev/null | wc -l)"
  check "outbox: exactly one message for refund:A-1002 (found $key_files)" test "$key_files" -eq 1
  all_files="$(find "$DIR/outbox" -maxdepth 1 -name '*.json' | wc -l)"
  check "outbox: nothing else was sent (found $all_files)" test "$all_files" -eq 1
  sends="$("$AMPOULE" gate log --policy "$DIR/policy.json" --idempotency-key refund:A-1002 2>/dev/null |
           grep -cE '^#[0-9]+ .* send ')"
  check "decision log: one send for refund:A-1002 (found $sends)" test "$sends" -eq 1
  tally="$(sed -n 's/^held-out check: \([0-9]*\)\/\([0-9]*\) match$/\1 \2/p' "$WORK/out.txt")"
  read -r matched total <<<"${tally:-0 -1}"
  check "held-out check: $matched/$total match" test "$matched" -eq "$total" -a "$total" -gt 0
  per_order="$(grep -cE '^held-out A-[0-9]+: program .*: match$' "$WORK/out.txt")"
  check "one match line per held-out order ($per_order)" test "$per_order" -eq "$total"
  check "the summary says all checks held" grep -qE '^refund demo: all [0-9]+ checks as expected' "$WORK/out.txt"
  # A step that does not go as the story expects must fail the demo: here
  # every gate submission is killed before it decides (docs/gate.md).
  AMPOULE_GATE_CRASH_AT=after-check "$AMPOULE" demo refund --dir "$WORK/crash" --kernel "$KERNEL" \
    >"$WORK/crash.txt" 2>&1
  check "a step not as expected makes the demo exit 1" test $? -eq 1
  check "... and says which" grep -qE '^  FAIL +1\. gate: the verified refund +got .*exit 137' "$WORK/crash.txt"
else
  check "the lab's replay: REPLAY OK" has_line "  -> REPLAY OK, exit 0: as expected"
  check "the same score" has_line "  -> episode-7 score 3 of 4, replayed: as expected"
  check "the receipt for episode 8: FAILED" has_line "  -> FAILED, exit 1: as expected"
  check "the input digest mismatch is named" \
    grep -qE '^    ampoule verify: input episode.json: episode-8.json has sha256 [0-9a-f]{64}, the receipt signed' \
    "$WORK/out.txt"
  check "mismatch caught" grep -qE '^  -> mismatch caught .*: as expected$' "$WORK/out.txt"
  # Independently of the demo: its receipt replays on episode 7 only.
  "$AMPOULE" verify --replay "$DIR/grade-7.receipt.json" --key "$DIR/vendor.key.pub" --kernel "$KERNEL" \
    --program "$DIR/grader.py" --input "episode.json=$DIR/episode-7.json" >/dev/null 2>&1
  check "the receipt replays on episode 7" test $? -eq 0
  "$AMPOULE" verify --replay "$DIR/grade-7.receipt.json" --key "$DIR/vendor.key.pub" --kernel "$KERNEL" \
    --program "$DIR/grader.py" --input "episode.json=$DIR/episode-8.json" >/dev/null 2>&1
  check "the receipt does not replay on episode 8" test $? -eq 1
  check "the summary says all checks held" grep -qE '^grader demo: all [0-9]+ checks as expected' "$WORK/out.txt"
fi
finish
