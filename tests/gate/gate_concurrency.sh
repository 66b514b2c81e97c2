#!/usr/bin/env bash
# Exactly once under concurrency (docs/gate.md "Exactly once"):
# separate `ampoule gate submit` processes started together, counted where
# the action lands.
#
#   tests/gate/gate_concurrency.sh --ampoule BIN [--kernel K] [--processes N]
#
#   one key    N (default 32) submissions of the same action: exactly one
#              exits 0 with SEND, every other exits 4 with ESCALATE (a
#              duplicate); exactly one outbox message carries the key, the
#              outbox holds nothing else, and `gate log` shows N decisions of
#              which exactly one is a send
#   four keys  N submissions spread over 4 keys: exactly 4 sends and 4
#              messages, one per key, N - 4 duplicates
# The processes wait on a start file so that they begin together; each
# verifies and replays before it reaches the log, so they overlap there.
#
# Prints `ok`/`FAIL` per case and a summary; exit 1 on any failure;
# `skipped: REASON` (exit 0) without a kernel.
N=32
args=()
while (($#)); do
  if [[ "$1" == --processes ]]; then N="${2:-32}"; shift 2 || break; else args+=("$1"); shift; fi
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gate_start gate_concurrency "${args[@]}"
cd "$FX"

# launch NAME DB OUTBOX DRAFT...: one process per DRAFT argument, all
# released at once; process i leaves $WORK/NAME/i.{out,rc}.
launch() {
  local name="$1" db="$2" outbox="$3"; shift 3
  local dir="$WORK/$name" i=0 pids=() draft
  mkdir -p "$dir"
  for draft in "$@"; do
    (
      while [[ ! -e "$dir/go" ]]; do sleep 0.01; done
      exec "$AMPOULE" gate submit "$draft" --policy "$POLICY" --kernel "$KERNEL" --db "$db" \
        --outbox "$outbox" >"$dir/$i.out" 2>"$dir/$i.err" </dev/null
    ) &
    pids+=($!)
    i=$((i + 1))
  done
  touch "$dir/go"
  for i in "${!pids[@]}"; do
    wait "${pids[i]}"
    echo $? >"$dir/$i.rc"
  done
}

# tally NAME: counts of (exit, last line) pairs, e.g. "31 4 ESCALATE".
tally() {
  local f
  for f in "$WORK/$1"/*.rc; do
    printf '%s %s\n' "$(cat "$f")" "$(tail -n 1 "${f%.rc}.out")"
  done | sort | uniq -c | sed 's/^ *//'
}

# --- One key, N processes ------------------------------------------------------
write_draft one.json conc:one
drafts=()
for ((i = 0; i < N; i++)); do drafts+=(one.json); done
launch one "$WORK/one.db" "$WORK/one-outbox" "${drafts[@]}"
counts="$(tally one)"
want="$(printf '1 0 SEND\n%d 4 ESCALATE' $((N - 1)))"
[[ "$counts" == "$want" ]] && ok "one key: exactly one SEND (exit 0), $((N - 1)) ESCALATE (exit 4)" ||
  fail "one key: (count, exit, last line) was" "$counts" "wanted:" "$want" \
    "stderr of one: $(cat "$WORK"/one/*.err | sort | uniq -c | sort -rn | head -n 5)"
dups=0
for f in "$WORK"/one/*.out; do
  [[ "$(tail -n 1 "$f")" == ESCALATE ]] && grep -qiE '^reason: .*(sent|duplicate)' "$f" && dups=$((dups + 1))
done
[[ "$dups" == $((N - 1)) ]] && ok "one key: every ESCALATE gives the duplicate as its reason" ||
  fail "one key: $dups of $((N - 1)) escalations name a duplicate"
n="$(outbox_messages "$WORK/one-outbox" conc:one)" files="$(outbox_files "$WORK/one-outbox")"
[[ "$n" == 1 && "$files" == 1 ]] && ok "one key: exactly one message in the outbox, nothing else" ||
  fail "one key: $n messages for the key, $files files in the outbox"
if log_json --db "$WORK/one.db"; then
  rows="$(log_count True)" sends="$(log_count 'r["decision"].lower() == "send"')"
  [[ "$rows" == "$N" && "$sends" == 1 ]] && ok "one key: the log holds $N decisions, one send" ||
    fail "one key: the log holds $rows decisions ($sends sends), wanted $N (1 send)"
else
  fail "one key: gate log failed" "$(cat "$WORK/log.err")"
fi

# --- Four keys, N processes -----------------------------------------------------
drafts=()
for k in 0 1 2 3; do write_draft "mixed-$k.json" "conc:mixed-$k"; done
for ((i = 0; i < N; i++)); do drafts+=("mixed-$((i % 4)).json"); done
launch mixed "$WORK/mixed.db" "$WORK/mixed-outbox" "${drafts[@]}"
counts="$(tally mixed)"
want="$(printf '4 0 SEND\n%d 4 ESCALATE' $((N - 4)))"
[[ "$counts" == "$want" ]] && ok "four keys: exactly 4 SEND, $((N - 4)) ESCALATE" ||
  fail "four keys: (count, exit, last line) was" "$counts" "wanted:" "$want" \
    "stderr of one: $(cat "$WORK"/mixed/*.err | sort | uniq -c | sort -rn | head -n 5)"
per_key=""
for k in 0 1 2 3; do per_key+="$(outbox_messages "$WORK/mixed-outbox" "conc:mixed-$k")"; done
files="$(outbox_files "$WORK/mixed-outbox")"
[[ "$per_key" == 1111 && "$files" == 4 ]] && ok "four keys: exactly 4 messages, one per key" ||
  fail "four keys: messages per key $per_key (wanted 1111), $files files in the outbox"
if log_json --db "$WORK/mixed.db"; then
  rows="$(log_count True)" sends="$(log_count 'r["decision"].lower() == "send"')"
  keys="$(log_count 'r["decision"].lower() == "send" and r["idempotency_key"].startswith("conc:mixed-")')"
  [[ "$rows" == "$N" && "$sends" == 4 && "$keys" == 4 ]] && ok "four keys: the log holds $N decisions, 4 sends" ||
    fail "four keys: the log holds $rows decisions ($sends sends), wanted $N (4)"
else
  fail "four keys: gate log failed" "$(cat "$WORK/log.err")"
fi

finish
