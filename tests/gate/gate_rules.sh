#!/usr/bin/env bash
# The trust gate's rules from the outside (docs/gate.md): every
# decision through `ampoule gate submit` with real receipts from `ampoule run`.
#
#   tests/gate/gate_rules.sh --ampoule BIN [--kernel K]
#
#   send      exit 0, last line SEND, one outbox message with exactly the
#             documented keys and only the draft's fields; --json's object
#   refuse    exit 1: a signed byte changed, the signature changed, an
#             untrusted signer, the output / input / program altered after
#             the run, a failed run (status, fuel), a run the host stopped,
#             a garbage receipt; and, with receipts re-signed by the trusted
#             key (python3 cryptography), a receipt naming another kernel and
#             two replay mismatches (a lied-about output, a lied-about fuel)
#   hold      exit 3: a field differs (the reason names it and both values),
#             a number for a string, a pointer to nothing, stale data, data dated in the future
#   exact     numbers compared as exact decimals from the signed output's
#             text (1e16 is not 10000000000000001; 1e400 in the output is
#             read); a draft number that cannot be carried exactly is an
#             error; each field's pointer is in the log and the outbox; a
#             policy pinning sources per kind holds a recipient paired with
#             another record's amount; one key in NFC and NFD is a duplicate,
#             and keys with invisible or control characters are errors
#   escalate  exit 4: a duplicate after a send, a held draft whose key was
#             sent (duplicate wins over hold), fuel over the ceiling (and
#             hold wins over that)
#   error     exit 2 `ERROR: ...`: usage, malformed or unknown fields in the
#             draft or policy, missing files, a kernel that is not the pin,
#             an unopenable log, an outbox that cannot be made; nothing is
#             recorded, and the log goes on deciding other actions
#   outbox    one decision log per outbox: a second log on the outbox, or a
#             log deleted and made anew under it, is refused (exit 2, nothing
#             recorded); a file planted under the next message's name is not
#             taken for it (the send stays pending, the error names the
#             file) and, moved away, the next gate command delivers
#   log       `gate log` (text and --json, --db, --idempotency-key) lists
#             every decision in order with its reasons and receipt digest
# Decisions other than send leave the outbox as it was (but for its marker,
# .ampoule-outbox, made by the first submission on it).
#
# Prints `ok`/`FAIL` per case and a summary; exit 1 on any failure;
# `skipped: REASON` (exit 0) without a kernel.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gate_start gate_rules "$@"
cd "$FX"
OUTBOX="$FX/outbox"
: >"$WORK/expected.jsonl"

# record: appends the last submission's decision to the expected log.
record() {
  gate_json record "$WORK/expected.jsonl" "$1" "$SUBMIT_DRAFT" "$SUBMIT_RECEIPT" "$REASONS"
}

# message_name LOG_ID ID KEY: the file name docs/gate.md gives a message.
message_name() { gate_json message-name "$@"; }

# message_ok FILE: FILE is the outbox message of the last submission, named
# by the log its outbox's marker names, its decision and its key.
message_ok() {
  gate_json message-ok "$1" "$SUBMIT_DRAFT" "$SUBMIT_RECEIPT"
}

# expect NAME CODE WORD [REGEX...]: the last submission exited CODE with last
# line WORD (the `reason:` lines come before it; the command also prints
# `decision #ID:` and `delivered:` lines there, which docs/gate.md does not
# list but does not rule out, so they are not checked), the first REGEX
# matches the first reason and each further one matches some reason (grep
# -E, case-insensitive). Then the outbox: a send added exactly one message
# for the key (checked with message_ok), anything else added no file.
expect() {
  local name="$1" code="$2" word="$3"; shift 3
  local problems=()
  [[ "$RC" == "$code" ]] || problems+=("exit $RC, wanted $code")
  [[ "$LAST" == "$word" ]] || problems+=("last line '$LAST', wanted '$word'")
  if (($#)); then
    # Here-strings, not pipes: under pipefail, `printf | grep -q` fails when
    # grep exits at its match before printf has written everything (SIGPIPE).
    grep -qiE -- "$1" <<<"${REASONS%%$'\n'*}" || problems+=("first reason does not match /$1/")
    shift
    local re
    for re in "$@"; do
      grep -qiE -- "$re" <<<"$REASONS" || problems+=("no reason matches /$re/")
    done
  fi
  local after; after="$(outbox_files "$OUTBOX")"
  if [[ "$word" == SEND ]]; then
    local key; key="$(gate_json draft-key "$SUBMIT_DRAFT")"
    ((after == OUTBOX_BEFORE + 1)) || problems+=("outbox went from $OUTBOX_BEFORE to $after files, wanted one more")
    local n; n="$(outbox_messages "$OUTBOX" "$key")"
    [[ "$n" == 1 ]] || problems+=("$n outbox messages for key $key, wanted 1")
    local file; file="$(grep -l -- "\"$key\"" "$OUTBOX"/send-*.json 2>/dev/null | head -n 1)"
    if [[ -n "$file" ]]; then
      local bad; bad="$(message_ok "$file")" || problems+=("message $file: $bad")
    fi
  else
    ((after == OUTBOX_BEFORE)) || problems+=("outbox went from $OUTBOX_BEFORE to $after files; only a send may add one")
  fi
  if ((${#problems[@]} == 0)); then ok "$name"; else fail "$name" "${problems[@]}" "$(describe)"; fi
  # The log must hold what the gate decided, right or wrong.
  [[ "$LAST" =~ ^(SEND|REFUSE|HOLD|ESCALATE)$ ]] && record "${LAST,,}"
}

# expect_error NAME: exit 2, last line `ERROR: ...`, nothing recorded.
expect_error() {
  local name="$1" problems=()
  [[ "$RC" == 2 ]] || problems+=("exit $RC, wanted 2")
  [[ "$LAST" == "ERROR: "?* ]] || problems+=("last line '$LAST', wanted 'ERROR: <reason>'")
  local after; after="$(outbox_files "$OUTBOX")"
  ((after == OUTBOX_BEFORE)) || problems+=("outbox went from $OUTBOX_BEFORE to $after files")
  local rows=0
  [[ -f "$FX/gate.db" ]] && log_json --policy "$POLICY" && rows="$(grep -c . "$WORK/log.jsonl")"
  local want; want="$(grep -c . "$WORK/expected.jsonl")"
  ((rows == want)) || problems+=("the log has $rows rows, wanted $want: an error must record nothing")
  if ((${#problems[@]} == 0)); then ok "$name"; else fail "$name" "${problems[@]}" "$(describe)"; fi
}

HAVE_CRYPTO=0
python3 -c 'import cryptography.hazmat.primitives.asymmetric.ed25519' 2>/dev/null && HAVE_CRYPTO=1  # for gate_json forge

# forge SRC DST KEYFILE PYTHON: DST is SRC's statement changed by PYTHON
# (statements over `st`, the decoded statement), re-signed with KEYFILE.
# A trusted signer lying, which only replay can catch.
forge() { gate_json forge "$@"; }

# --- More evidence ------------------------------------------------------------
# A byte of the signed payload changed, the signature kept.
gate_json tamper refund.receipt.json payload-changed.json sig-changed.json
printf 'not a receipt\n' >garbage.json
run_signed "$FX" refund.py other.out other.receipt.json --input orders.csv=orders.csv --key other.key
# Altered after the run: the output, an input, the program.
sed 's/12\.50/99.00/' refund.out >altered.out
printf 'A-1,99.00,ana\n' >altered-orders.csv
{ cat refund.py; printf '# changed\n'; } >altered.py
# A failed run that printed its JSON, one out of fuel, one the host stopped.
printf 'import json, sys\nprint(json.dumps({"refund": "12.50", "customer": "ana"}))\nsys.exit(3)\n' >status3.py
run_signed "$FX" status3.py status3.out status3.receipt.json
printf 'import json\nprint(json.dumps({"refund": "12.50", "customer": "ana"}))\nwhile True:\n    pass\n' >spin.py
run_signed "$FX" spin.py fuel.out fuel.receipt.json --fuel 300000000
run_signed "$FX" spin.py timeout.out timeout.receipt.json --timeout 1
# A run with stdin.
printf 'import json, sys\nname = sys.stdin.read().strip()\nprint(json.dumps({"refund": "3.00", "customer": name}))\n' >stdin.py
printf 'bo\n' >stdin.txt
run_signed "$FX" stdin.py stdin.out stdin.receipt.json --stdin stdin.txt
for f in other status3 fuel timeout stdin; do
  [[ -s "$f.receipt.json" ]] || fail "fixture: $f.receipt.json was not made" "$(cat "$WORK/run.err")"
done

# --- send ---------------------------------------------------------------------
write_draft send.json refund:A-1
submit send.json
expect "send: exit 0, SEND, one outbox message with the draft's fields" 0 SEND

write_draft send-json.json refund:json
submit send-json.json --json
if gate_json send-json-ok "$OUT" refund.receipt.json; then ok "send --json: one object with the documented keys"; else fail "send --json" "$(describe)"; fi
[[ "$RC" == 0 ]] && REASONS="$(gate_json reasons "$OUT" 2>/dev/null)"
record send

write_draft send-stdin.json refund:stdin fields='{"amount": {"value": "3.00", "from": "/refund"}, "recipient": {"value": "bo", "from": "/customer"}}' \
  receipt=stdin.receipt.json program=stdin.py inputs='{}' output=stdin.out stdin=stdin.txt
submit send-stdin.json
expect "send: a run with stdin" 0 SEND

# Relative paths start from the draft's and the policy's folders, not the
# working folder; --receipt replaces evidence.receipt.
write_draft send-elsewhere.json refund:elsewhere receipt=no-such-receipt.json
(cd / && submit "$FX/send-elsewhere.json" --receipt "$FX/refund.receipt.json" && declare -p RC OUT ERR LAST REASONS SUBMIT_DRAFT SUBMIT_RECEIPT OUTBOX_BEFORE) >"$WORK/sub.sh"
source "$WORK/sub.sh"
expect "send: from another folder, --receipt replacing evidence.receipt" 0 SEND
[[ ! -e /gate.db && ! -e /outbox ]] && ok "paths: the log and outbox are in the policy's folder" ||
  fail "paths: the gate wrote gate.db or outbox/ to the working folder /"

write_draft receipt-override.json refund:override
submit receipt-override.json --receipt other.receipt.json
expect "refuse: --receipt replaces a good evidence.receipt (untrusted signer)" 1 REFUSE .

# --- escalate: duplicate --------------------------------------------------------
submit send.json
expect "escalate: the same action again is a duplicate" 4 ESCALATE 'sent|duplicate'
submit send.json
expect "escalate: and again" 4 ESCALATE 'sent|duplicate'

# --- hold -------------------------------------------------------------------------
write_draft hold-amount.json refund:hold-amount fields='{"amount": {"value": "42.00", "from": "/refund"}, "recipient": {"value": "ana", "from": "/customer"}}'
submit hold-amount.json
expect "hold: amount differs; the reason names the field and both values" 3 HOLD 'amount.*42\.00.*12\.50|amount.*12\.50.*42\.00'
[[ "$(printf '%s\n' "$REASONS" | grep -c .)" == 1 ]] && ok "hold: only the differing field is listed" ||
  fail "hold: only the differing field is listed" "$(describe)"

write_draft hold-json.json refund:hold-json fields='{"amount": {"value": "42.00", "from": "/refund"}}'
submit hold-json.json --json
if gate_json hold-json-ok "$OUT" refund.receipt.json; then ok "hold --json: decision, reasons, id, key, receipt digest, no outbox_file"; else fail "hold --json" "$(describe)"; fi
[[ "$RC" == 3 ]] && ok "hold --json: exit 3" || fail "hold --json: exit $RC, wanted 3"
[[ "$(outbox_files "$OUTBOX")" == "$OUTBOX_BEFORE" ]] || fail "hold --json: the outbox changed"
REASONS="$(gate_json reasons "$OUT" 2>/dev/null)"
[[ "$RC" == 3 ]] && record hold

write_draft hold-type.json refund:hold-type fields='{"amount": {"value": 12.5, "from": "/refund"}}'
submit hold-type.json
expect "hold: 12.5 (a number) is not \"12.50\" (a string)" 3 HOLD 'amount'

write_draft hold-missing.json refund:hold-missing fields='{"amount": {"value": "12.50", "from": "/refund"}, "tax": {"value": "1.00", "from": "/tax"}}'
submit hold-missing.json
expect "hold: a field pointing to nothing in the output" 3 HOLD 'tax'

write_draft hold-stale.json refund:hold-stale as_of=2000-01-01T00:00:00Z
submit hold-stale.json
expect "hold: data older than max_data_age_seconds" 3 HOLD 'data|old|stale|age'

write_draft hold-future.json refund:hold-future as_of=2999-01-01T00:00:00Z
submit hold-future.json
expect "hold: data dated in the future cannot dodge the age rule" 3 HOLD 'in the future'

write_draft hold-both.json refund:hold-both as_of=2000-01-01T00:00:00Z fields='{"recipient": {"value": "bo", "from": "/customer"}}'
submit hold-both.json
expect "hold: a differing field and stale data, both listed" 3 HOLD . 'recipient' 'data|old|stale|age'

write_draft hold-fixed.json refund:hold-amount
submit hold-fixed.json
expect "send: the held action, fixed, under the same key" 0 SEND

# --- exact numbers, pointers, pinned sources, keys -----------------------------------
# Numbers a double cannot tell apart, and ones beyond doubles and 64 bits.
cat >records.py <<'EOF2'
print('{"orders": [{"customer": "ana", "amount": "12.50", "n": 10000000000000001},'
      ' {"customer": "bo", "amount": "99.00", "n": 2}], "huge": 1e400, "wide": 18446744073709551617}')
EOF2
run_signed "$FX" records.py records.out records.receipt.json ||
  fail "fixture: records.py did not run" "$(cat "$WORK/run.err")"
records=(receipt=records.receipt.json program=records.py inputs='{}' output=records.out)

write_draft exact-1e16.json exact:1e16 "${records[@]}" fields='{"n": {"value": 1e16, "from": "/orders/0/n"}}'
submit exact-1e16.json
expect "hold: 1e16 is not the signed 10000000000000001 (no rounding to doubles)" 3 HOLD \
  "'n' is 1e\\+?16 .*10000000000000001 at /orders/0/n"

write_draft exact-1e400.json exact:1e400 "${records[@]}" fields='{"huge": {"value": 1e308, "from": "/huge"}}'
submit exact-1e400.json
expect "hold: 1e400 in the signed output is read and shown as written" 3 HOLD "'huge' .*1e400 at /huge"

write_draft exact-send.json exact:send "${records[@]}" \
  fields='{"n": {"value": 10000000000000001, "from": "/orders/0/n"}, "recipient": {"value": "ana", "from": "/orders/0/customer"}}'
submit exact-send.json
expect "send: 10000000000000001 equals the signed 10000000000000001, delivered exactly" 0 SEND

write_draft err-exact.json exact:error "${records[@]}" fields='{"huge": {"value": "PLACEHOLDER", "from": "/huge"}}'
sed -i 's/"PLACEHOLDER"/1e400/' err-exact.json
submit err-exact.json
expect_error "error: a draft number beyond what can be carried exactly (1e400)"
[[ "$LAST" == *"carry it as a string"* ]] && ok "error: the message says to carry it as a string" ||
  fail "error: 1e400 in the draft: the message does not say what to do" "$(describe)"

# A policy that says nothing of a kind holds a recipient from one record
# paired with the amount of another: all fields from one record is the
# default. Only a policy that says so in writing (same_record: false) sends
# it; the log shows where each field came from either way.
cross='{"recipient": {"value": "ana", "from": "/orders/0/customer"}, "amount": {"value": "99.00", "from": "/orders/1/amount"}}'
write_draft cross.json pin:cross "${records[@]}" fields="$cross"
submit cross.json
expect "hold: fields from two records, a policy without kinds (the default rule)" 3 HOLD \
  "outside /orders/1, the record draft field 'amount' comes from: by default all fields of a kind come from one record"
if log_json --policy "$POLICY" --idempotency-key pin:cross &&
   gate_json fields-recorded "$WORK/log.jsonl"; then ok "log: each field's pointer is recorded"; else fail "log: the fields' pointers are not recorded" "$(cat "$WORK/log.jsonl")"; fi
write_policy "$FX/any-record.json" kinds='{"refund": {"same_record": false}}'
POLICY="$FX/any-record.json"
write_draft cross-any.json pin:cross-any "${records[@]}" fields="$cross"
submit cross-any.json
expect "send: fields from two records where the policy allows it (same_record: false)" 0 SEND
POLICY="$FX/policy.json"

write_policy "$FX/pinned.json" \
  kinds='{"refund": {"from": {"amount": "/orders/*/amount", "recipient": "/orders/*/customer"}, "same_record": "/orders/*"}}'
POLICY="$FX/pinned.json"
write_draft cross-pinned.json pin:cross-pinned "${records[@]}" fields="$cross"
submit cross-pinned.json
expect "hold: pinned, a recipient paired with another record's amount" 3 HOLD "same_record /orders/\\*"
write_draft pinned-other.json pin:other "${records[@]}" \
  fields='{"recipient": {"value": "ana", "from": "/orders/0/customer"}, "amount": {"value": 10000000000000001, "from": "/orders/0/n"}}'
submit pinned-other.json
expect "hold: pinned, an amount from another member than the pinned one" 3 HOLD \
  "'amount' comes from /orders/0/n, but the policy pins it to /orders/\\*/amount"
write_draft pinned-one.json pin:one "${records[@]}" \
  fields='{"recipient": {"value": "bo", "from": "/orders/1/customer"}, "amount": {"value": "99.00", "from": "/orders/1/amount"}}'
submit pinned-one.json
expect "send: pinned, both fields from one record" 0 SEND
POLICY="$FX/policy.json"

# Fields from an output file the run left in /output: the file is evidence
# like stdout, checked against its output/NAME subject. A changed file is
# refused, a differing value held, and a policy that pins stdout tells the
# file apart from it.
cat >report.py <<'EOF2'
import json
rows = [line.strip().split(",") for line in open("/input/orders.csv") if line.strip()]
order, refund, customer = rows[-1]
json.dump({"refund": refund, "customer": customer}, open("/output/refund.json", "w"))
print("{}")
EOF2
run_signed "$FX" report.py report.out report.receipt.json --input orders.csv=orders.csv --outputs report-out ||
  fail "fixture: report.py did not run" "$(cat "$WORK/run.err")"
from_file='{"amount": {"value": "12.50", "from": "output/refund.json#/refund"}, "recipient": {"value": "ana", "from": "output/refund.json#/customer"}}'
report=(receipt=report.receipt.json program=report.py output=report.out
        evidence.output_files='{"refund.json": "report-out/refund.json"}')
write_draft file.json file:send "${report[@]}" fields="$from_file"
submit file.json
expect "send: fields from an output file" 0 SEND
write_draft file-held.json file:held "${report[@]}" \
  fields='{"amount": {"value": "99.00", "from": "output/refund.json#/refund"}}'
submit file-held.json
expect "hold: a field differs from the output file" 3 HOLD 'amount.*99\.00.*12\.50'
printf '{"refund": "99.00", "customer": "ana"}' >forged-refund.json
write_draft file-forged.json file:forged "${report[@]}" evidence.output_files='{"refund.json": "forged-refund.json"}' \
  fields='{"amount": {"value": "99.00", "from": "output/refund.json#/refund"}}'
submit file-forged.json
expect "refuse: an output file changed after the run" 1 REFUSE 'output file'
write_draft file-unsigned.json file:unsigned "${report[@]}" evidence.output_files='{"other.json": "forged-refund.json"}' \
  fields='{"amount": {"value": "99.00", "from": "output/other.json#/refund"}}'
submit file-unsigned.json
expect "refuse: a file the run did not output" 1 REFUSE 'other\.json'
POLICY="$FX/pinned.json"
write_draft file-pinned.json file:pinned "${report[@]}" \
  fields='{"amount": {"value": "12.50", "from": "output/refund.json#/refund"}, "recipient": {"value": "ana", "from": "output/refund.json#/customer"}}'
submit file-pinned.json
expect "hold: pinned to stdout, a field from an output file" 3 HOLD "comes from output/refund\.json#/"
POLICY="$FX/policy.json"

# One key, precomposed and with a combining accent.
write_draft key-nfc.json refund:cafe fields='{"amount": {"value": "12.50", "from": "/refund"}}'
gate_json key-forms key-nfc.json key-nfd.json
submit key-nfc.json
expect "send: the key refund:caf\u00e9, precomposed" 0 SEND
submit key-nfd.json
expect "escalate: the same key with a combining accent is a duplicate" 4 ESCALATE 'sent|duplicate'

# --- escalate: duplicate over hold --------------------------------------------------
write_draft dup-held.json refund:A-1 fields='{"amount": {"value": "42.00", "from": "/refund"}}'
submit dup-held.json
expect "escalate: a held draft whose key was sent (duplicate before hold)" 4 ESCALATE 'sent|duplicate' 'amount'

# --- escalate: cost -----------------------------------------------------------------
write_policy "$FX/low-fuel.json" replay_fuel_ceiling=1000
POLICY="$FX/low-fuel.json"
write_draft cost.json refund:cost
submit cost.json
expect "escalate: fuel over replay_fuel_ceiling" 4 ESCALATE 'fuel|ceiling|cost'
write_draft cost-held.json refund:cost-held fields='{"amount": {"value": "42.00", "from": "/refund"}}'
submit cost-held.json
expect "hold: a differing field wins over fuel over the ceiling" 3 HOLD amount 'fuel|ceiling|cost'
submit send.json
expect "escalate: a duplicate over the ceiling, duplicate first" 4 ESCALATE 'sent|duplicate' 'fuel|ceiling|cost'
POLICY="$FX/policy.json"
submit cost.json
expect "send: the escalated action under a policy with room for it" 0 SEND

# --- refuse -------------------------------------------------------------------------
refuse_case() {  # NAME KEY [write_draft ARGS...]
  local name="$1" key="$2"; shift 2
  write_draft "refuse-$key.json" "refuse:$key" "$@"
  submit "refuse-$key.json"
  expect "refuse: $name" 1 REFUSE .
}
refuse_case "a signed byte of the receipt changed" payload receipt=payload-changed.json
refuse_case "a byte of the signature changed" sig receipt=sig-changed.json
refuse_case "signed by a key the policy does not trust" untrusted receipt=other.receipt.json output=other.out
refuse_case "not a receipt at all" garbage receipt=garbage.json
refuse_case "the output altered after the run (the draft matching it)" output output=altered.out \
  fields='{"amount": {"value": "99.00", "from": "/refund"}}'
refuse_case "an input altered after the run" input inputs='{"orders.csv": "altered-orders.csv"}'
refuse_case "the program altered after the run" program program=altered.py
refuse_case "the run exited with status 3" status receipt=status3.receipt.json program=status3.py inputs='{}' output=status3.out
refuse_case "the run ran out of fuel" fuel receipt=fuel.receipt.json program=spin.py inputs='{}' output=fuel.out
refuse_case "the host stopped the run (timeout)" timeout receipt=timeout.receipt.json program=spin.py inputs='{}' output=timeout.out
refuse_case "altered and stale: refuse wins, refuse's reason first" stale-output output=altered.out as_of=2000-01-01T00:00:00Z \
  fields='{"amount": {"value": "99.00", "from": "/refund"}}'

write_draft refuse-dup.json refund:A-1 output=altered.out fields='{"amount": {"value": "99.00", "from": "/refund"}}'
submit refuse-dup.json
expect "refuse: an altered output under a sent key (refuse before duplicate)" 1 REFUSE .

if ((HAVE_CRYPTO)); then
  forge refund.receipt.json lie.receipt.json agent.key 'set_stdout(open("altered.out", "rb").read())'
  refuse_case "replay mismatch: the trusted signer lied about the output" lie receipt=lie.receipt.json output=altered.out \
    fields='{"amount": {"value": "99.00", "from": "/refund"}}'
  forge refund.receipt.json fuel-lie.receipt.json agent.key 'st["predicate"]["result"]["fuel_used"] += 1'
  refuse_case "replay mismatch: the trusted signer lied about the fuel" fuel-lie receipt=fuel-lie.receipt.json
  forge refund.receipt.json kernel-lie.receipt.json agent.key 'st["predicate"]["kernel"]["sha256"] = "ab" * 32'
  refuse_case "the receipt names another kernel than the pin" kernel receipt=kernel-lie.receipt.json
  # Over the ceiling, replay is not attempted: a lie is escalated, not sent.
  forge refund.receipt.json costly-lie.receipt.json agent.key \
    'set_stdout(open("altered.out", "rb").read()); st["predicate"]["result"]["fuel_used"] = 30000000000'
  write_draft costly-lie.json refund:costly-lie receipt=costly-lie.receipt.json output=altered.out \
    fields='{"amount": {"value": "99.00", "from": "/refund"}}'
  submit costly-lie.json
  expect "escalate: signed fuel over the ceiling is not replayed (a lie stays unsent)" 4 ESCALATE 'fuel|ceiling|cost'
else
  echo "note: python3 cryptography not found: receipts re-signed by the trusted key (replay mismatch, another kernel) not checked"
fi

# --- errors: nothing decided or recorded ----------------------------------------------
err_case() {  # NAME, then the submit arguments
  local name="$1"; shift
  submit "$@"
  expect_error "error: $name"
}
err_draft() {  # NAME [write_draft ARGS...]
  local name="$1"; shift
  write_draft err.json refund:error "$@"
  err_case "$name" err.json
}
err_case "draft file missing" no-such-draft.json
printf '{"kind": "refund",' >err-trunc.json
err_case "draft is not JSON" err-trunc.json
printf '[]\n' >err-array.json
err_case "draft is an array" err-array.json
printf '{"kind":"refund","kind":"refund"}\n' >err-dupkey.json
err_case "draft repeats a key" err-dupkey.json
err_draft "unknown top-level field" amount='"12.50"'
err_draft "unknown evidence field" evidence.signature='"x"'
err_draft "unknown field inside a field" fields='{"amount": {"value": "12.50", "from": "/refund", "note": 1}}'
err_draft "no idempotency_key" idempotency_key=-
err_draft "a key with a trailing space" idempotency_key='"refund:A-1 "'
err_draft "a key with a zero-width space" idempotency_key='"refund:A\u200b-1"'
err_draft "a key with a C1 control (U+0085)" idempotency_key='"refund:A-1\u0085"'
err_draft "a key with a line separator (U+2028)" idempotency_key='"refund:A-1\u2028"'
err_draft "a key with a right-to-left override (U+202E)" idempotency_key='"refund:\u202e1-A"'
err_draft "a key of 257 code points" idempotency_key="\"$(printf 'k%.0s' {1..257})\""
err_draft "idempotency_key not a string" idempotency_key=7
err_draft "no fields" fields='{}'
err_draft "a field without from" fields='{"amount": {"value": "12.50"}}'
err_draft "from is not a JSON Pointer" fields='{"amount": {"value": "12.50", "from": "refund"}}'
err_draft "data_as_of with an offset instead of Z" as_of=2026-11-29T08:00:00+01:00
err_draft "data_as_of not a time" as_of=yesterday
err_draft "no evidence" evidence=-
err_draft "evidence receipt file missing" receipt=no-such-receipt.json
err_draft "evidence program file missing" program=no-such.py
err_draft "evidence output file missing" output=no-such.out
err_draft "evidence input file missing" inputs='{"orders.csv": "no-such.csv"}'
write_draft good.json refund:error
err_case "no --policy" good.json --policy
"$AMPOULE" gate submit >"$WORK/o" 2>/dev/null </dev/null; RC=$? OUT="$(cat "$WORK/o")" LAST="$(tail -n 1 "$WORK/o")" ERR=""
expect_error "error: no arguments"
err_case "unknown option" good.json --frobnicate
printf 'this is not a kernel\n' >not-a-kernel
err_case "--kernel is not the pinned kernel" good.json --kernel "$FX/not-a-kernel"
err_case "--db cannot be opened" good.json --db "$FX/refund.py/gate.db"

err_policy() {  # NAME [write_policy ARGS...]
  local name="$1"; shift
  write_policy "$FX/err-policy.json" "$@"
  POLICY="$FX/err-policy.json"
  submit good.json --db "$FX/gate.db"
  POLICY="$FX/policy.json"
  expect_error "error: policy: $name"
}
err_policy "unknown field" trust_everyone=true
err_policy "no kernel_sha256" kernel_sha256=-
err_policy "kernel_sha256 not a digest" kernel_sha256='"32ac6d3b"'
err_policy "kernel_sha256 is another kernel" kernel_sha256="\"$(printf 'ab%.0s' {1..32})\""
err_policy "trusted key file missing" trusted_keys='["no-such.pub"]'
err_policy "trusted key is a secret key" trusted_keys='["agent.key"]'
err_policy "max_data_age_seconds negative" max_data_age_seconds=-1
err_policy "replay_fuel_ceiling a string" replay_fuel_ceiling='"lots"'
POLICY="$FX/no-such-policy.json"; submit good.json; POLICY="$FX/policy.json"
expect_error "error: policy file missing"
printf '{"trusted_keys": [' >"$FX/err-policy.json"
POLICY="$FX/err-policy.json"; submit good.json --db "$FX/gate.db"; POLICY="$FX/policy.json"
expect_error "error: policy is not JSON"

# --- --db and --outbox override the policy's ----------------------------------------
write_draft override.json refund:override-paths
OUTBOX="$WORK/other-outbox"
submit override.json --db "$WORK/other.db" --outbox "$WORK/other-outbox"
OUTBOX="$FX/outbox"
if [[ "$RC" == 0 && "$(outbox_messages "$WORK/other-outbox" refund:override-paths)" == 1 &&
      "$(outbox_messages "$FX/outbox" refund:override-paths)" == 0 ]] &&
   log_json --db "$WORK/other.db" && [[ "$(log_count 'True')" == 1 ]]; then
  ok "--db and --outbox: the decision and the message go there, not to the policy's"
else
  fail "--db and --outbox" "$(describe)" "other.db rows: $(cat "$WORK/log.jsonl" 2>/dev/null)"
fi

# An outbox that cannot be made: exit 2 means nothing decided or recorded, and
# the log goes on deciding other actions (on a log of its own, so that a
# failure here does not spill into the checks below).
write_draft bad-outbox.json refund:bad-outbox
OUTBOX="$WORK/unused"
submit bad-outbox.json --db "$WORK/bad-outbox.db" --outbox "$FX/refund.py/outbox"
# `gate log` lists the rows even when it then exits non-zero.
log_json --db "$WORK/bad-outbox.db"; log_rc=$?
rows="$(grep -c . "$WORK/log.jsonl")"
if [[ "$RC" == 2 && "$LAST" == "ERROR: "* && "$rows" == 0 && "$log_rc" == 0 ]]; then
  ok "error: --outbox cannot be created: nothing recorded"
else
  fail "error: --outbox cannot be created: exit $RC, $rows rows recorded, gate log exit $log_rc (wanted 2, none, 0)" \
    "$(describe)" "gate log: $(cat "$WORK/log.jsonl" "$WORK/log.err")"
fi
write_draft after-bad-outbox.json refund:after-bad-outbox
OUTBOX="$WORK/good-outbox"
submit after-bad-outbox.json --db "$WORK/bad-outbox.db" --outbox "$WORK/good-outbox"
OUTBOX="$FX/outbox"
if [[ "$RC" == 0 && "$LAST" == SEND && "$(outbox_messages "$WORK/good-outbox" refund:after-bad-outbox)" == 1 ]]; then
  ok "after a failed outbox, the log still decides and delivers other actions"
else
  fail "after a failed outbox, another action on the same log is not decided" "$(describe)"
fi

# --- kind is free text, but one decision is one log line ---------------------------
# A line break in the draft's kind must not forge a line in `gate log`:
# either the draft is refused as malformed, or the log keeps it on its line.
write_draft kind-newline.json refund:kind-newline \
  kind=$'refund\n#999 2026-01-01T00:00:00Z send     refund refund:forged receipt:000000000000 delivered'
submit kind-newline.json
if [[ "$RC" == 2 ]]; then
  expect_error "a kind with a line break: malformed"
else
  expect "a kind with a line break: decided like any other" 0 SEND
fi

# --- the outbox belongs to one decision log -------------------------------------------
# As an attacker (or an accident) would try it (docs/threat-model.md, "The
# trust gate: the outbox"): a second log delivering into an outbox, a log
# deleted and made anew under its old outbox, a file planted under the next
# message's name. No send may be called delivered unless its own message is
# in a file, and what the gate cannot deliver it says so. These use logs of
# their own, not the policy's.

# delivered_in_files DB: prints each send the log DB calls delivered whose
# outbox_file does not hold its message (nothing when all do).
delivered_in_files() {
  log_json --db "$1" || { echo "gate log --db $1 failed: $(cat "$WORK/log.err")"; return; }
  gate_json delivered-in-files "$WORK/log.jsonl"
}
rows_in() { if log_json --db "$1"; then grep -c . "$WORK/log.jsonl"; else echo "?"; fi; }

SHARED="$WORK/shared-outbox"
OUTBOX="$SHARED"
write_draft shared.json refund:shared
submit shared.json --db "$WORK/log-a.db" --outbox "$SHARED"
owner="$(outbox_owner "$SHARED")"
if [[ "$RC" == 0 && "$LAST" == SEND && "$owner" =~ ^[0-9a-f]{32}$ && "$(outbox_messages "$SHARED" refund:shared)" == 1 ]]; then
  ok "outbox: the first log to use it claims it (.ampoule-outbox names the log's identity)"
else
  fail "outbox: the first log's send, marker '$owner'" "$(describe)"
fi

# A second log, same outbox, same key: its decision #1 is named like the
# first log's #1 was under names by decision id alone.
submit shared.json --db "$WORK/log-b.db" --outbox "$SHARED"
rows_b="$(rows_in "$WORK/log-b.db")" bad="$(delivered_in_files "$WORK/log-b.db")"
if [[ "$RC" == 2 && "$LAST" == "ERROR: "*"belongs to another decision log"*"$owner"* && "$rows_b" == 0 &&
      "$(outbox_files "$SHARED")" == "$OUTBOX_BEFORE" && "$(outbox_owner "$SHARED")" == "$owner" && -z "$bad" ]]; then
  ok "outbox: a second decision log on the same outbox is refused, says whose it is, records nothing"
else
  fail "outbox: a second decision log on the same outbox ($rows_b rows in it)" "$(describe)" "$bad"
fi

# The first log deleted (or rotated away) and a new one made at its path.
rm -f "$WORK/log-a.db" "$WORK/log-a.db-wal" "$WORK/log-a.db-shm"
submit shared.json --db "$WORK/log-a.db" --outbox "$SHARED"
rows_a="$(rows_in "$WORK/log-a.db")" bad="$(delivered_in_files "$WORK/log-a.db")"
if [[ "$RC" == 2 && "$LAST" == "ERROR: "*"belongs to another decision log"*"was replaced"* && "$rows_a" == 0 &&
      "$(outbox_files "$SHARED")" == "$OUTBOX_BEFORE" && -z "$bad" ]]; then
  ok "outbox: a decision log deleted and made anew does not inherit the old log's outbox"
else
  fail "outbox: a decision log made anew under the old outbox ($rows_a rows in it)" "$(describe)" "$bad"
fi

# A file planted under the name the next send's message will have. The
# name is predictable from the marker, the next decision id and the key.
PLANTED="$WORK/planted-outbox"
OUTBOX="$PLANTED"
write_draft planted-hold.json refund:planted-hold as_of=2000-01-01T00:00:00Z
submit planted-hold.json --db "$WORK/log-c.db" --outbox "$PLANTED"  # decision #1, claims the outbox
owner="$(outbox_owner "$PLANTED")"
planted="$PLANTED/$(message_name "$owner" 2 refund:planted)"
printf '{"decision_log": "%s", "decision_id": 2, "idempotency_key": "refund:planted", "kind": "refund", "fields": {"amount": "9999.00", "recipient": "mallory"}}\n' \
  "$owner" >"$planted"
planted_sha="$(sha256 "$planted")"
write_draft planted.json refund:planted
submit planted.json --db "$WORK/log-c.db" --outbox "$PLANTED"
log_json --db "$WORK/log-c.db"
state="$(gate_json decision-state "$WORK/log.jsonl" 2)"
if [[ "$RC" == 2 && "$LAST" == "ERROR: send #2 was recorded but not delivered"*"$planted already exists but is not the message"* &&
      "$state" == "send pending" && "$(sha256 "$planted")" == "$planted_sha" ]]; then
  ok "outbox: a file planted under the message's name: not delivered, the error names it, the send stays pending"
else
  fail "outbox: a file planted under the message's name (send #2: $state)" "$(describe)"
fi
"$AMPOULE" gate log --db "$WORK/log-c.db" >/dev/null 2>"$WORK/planted-log.err"
grep -q "still pending.*$planted" "$WORK/planted-log.err" && [[ "$(sha256 "$planted")" == "$planted_sha" ]] &&
  ok "outbox: gate log says the planted send is still pending, and why" ||
  fail "outbox: gate log on the planted send" "$(cat "$WORK/planted-log.err")"
bad="$(delivered_in_files "$WORK/log-c.db")"
[[ -z "$bad" ]] && ok "outbox: no send called delivered without its message in a file" || fail "outbox: a lost send" "$bad"
# Moved out of the way (after a look at it), the next gate command delivers.
mv "$planted" "$WORK/planted-evidence.json"
"$AMPOULE" gate log --db "$WORK/log-c.db" >/dev/null 2>"$WORK/planted-log.err"
log_json --db "$WORK/log-c.db"
delivered="$(log_count 'r["id"] == 2 and r.get("delivery") == "delivered"')" bad="$(delivered_in_files "$WORK/log-c.db")"
SUBMIT_DRAFT="$FX/planted.json" SUBMIT_RECEIPT="$FX/refund.receipt.json"
if [[ "$delivered" == 1 && -z "$bad" ]] && message_ok "$planted" >"$WORK/planted-msg.txt"; then
  ok "outbox: the planted file moved away, the next gate command delivers the real message"
else
  fail "outbox: after moving the planted file away" "$(cat "$WORK/planted-log.err" "$WORK/planted-msg.txt")" "$bad"
fi
OUTBOX="$FX/outbox"

# --- the log -------------------------------------------------------------------------
if log_json --policy "$POLICY"; then
  if gate_json log-matches "$WORK/log.jsonl" "$WORK/expected.jsonl"; then ok "log --json: every decision in order, with its reasons and receipt digest"; else fail "log --json: rows differ from the decisions made"; fi
else
  fail "log --json: exit non-zero" "$(cat "$WORK/log.err")"
fi
rows="$(grep -c . "$WORK/log.jsonl")"

"$AMPOULE" gate log --policy "$POLICY" >"$WORK/log.txt" 2>"$WORK/log.err"; rc=$?
heads="$(grep -cE '^#[0-9]+ ' "$WORK/log.txt")"
# Columns may be padded; KIND is free text (spaces too); delivered|pending
# only on sends.
good="$(grep -cE '^#[0-9]+ +[^ ]+ +(send|hold|escalate|refuse|SEND|HOLD|ESCALATE|REFUSE) +.+ +[^ ]+ +receipt:[0-9a-f]+( +\[?(delivered|pending)\]?)?$' "$WORK/log.txt")"
others="$(grep -vcE '^#[0-9]+ |^[[:space:]]+[^[:space:]]' "$WORK/log.txt")"
if [[ "$rc" == 0 && "$heads" == "$rows" && "$good" == "$rows" && "$others" == 0 ]]; then
  ok "log: one '#ID TIME DECISION KIND KEY receipt:PREFIX delivered|pending' line per decision, reasons indented"
else
  fail "log (text): exit $rc, $heads decision lines ($good in the documented form), $others other lines; wanted $rows" \
    "$(head -n 12 "$WORK/log.txt")"
fi
grep -q '^#999 ' "$WORK/log.txt" &&
  fail "log: the line break in a draft's kind forged a decision line" "$(grep -B1 '^#999 ' "$WORK/log.txt")" ||
  ok "log: a draft's kind cannot forge a decision line"
want_reasons="$(gate_json reason-count "$WORK/expected.jsonl")"
indented="$(grep -cE '^[[:space:]]+[^[:space:]]' "$WORK/log.txt")"
[[ "$indented" == "$want_reasons" ]] && ok "log: every reason listed under its decision" ||
  fail "log: $indented indented lines, $want_reasons reasons were printed"
# Each send's state is checked row by row in --json above; here only that
# the text shows it.
pending_lines="$(grep -cE '^#[0-9]+ .* \[?pending\]?$' "$WORK/log.txt")"
delivered_lines="$(grep -cE '^#[0-9]+ +[^ ]+ +(send|SEND) .* \[?delivered\]?$' "$WORK/log.txt")"
if ((pending_lines == 0 && delivered_lines > 0)); then
  ok "log: every send is delivered"
else
  fail "log: a send is still pending, or none is shown delivered" "$(grep -E '^#' "$WORK/log.txt" | head)"
fi

if log_json --policy "$POLICY" --idempotency-key refund:A-1 &&
   [[ "$(log_count 'r["idempotency_key"] == "refund:A-1"')" == "$(grep -c . "$WORK/log.jsonl")" ]] &&
   [[ "$(grep -c . "$WORK/log.jsonl")" == "$(grep -c '"key": "refund:A-1"' "$WORK/expected.jsonl")" ]] &&
   [[ "$(log_count 'r["decision"].lower() == "send"')" == 1 ]]; then
  ok "log --idempotency-key: that key's decisions only, one send"
else
  fail "log --idempotency-key refund:A-1" "$(cat "$WORK/log.jsonl" "$WORK/log.err")"
fi
if "$AMPOULE" gate log --db "$FX/gate.db" --json >"$WORK/log-db.jsonl" 2>/dev/null &&
   [[ "$(grep -c . "$WORK/log-db.jsonl")" == "$rows" ]]; then
  ok "log --db: the same rows as --policy"
else
  fail "log --db: not the same rows as --policy"
fi
"$AMPOULE" gate log >"$WORK/o" 2>/dev/null </dev/null; rc=$?
[[ "$rc" == 2 && "$(tail -n 1 "$WORK/o")" == "ERROR: "* ]] && ok "log without --policy or --db: exit 2, ERROR:" ||
  fail "log without --policy or --db: exit $rc, stdout '$(cat "$WORK/o")'"

# Nothing but messages and the marker in the outbox: no temporary file left
# behind.
stray="$(find "$FX/outbox" -mindepth 1 ! -name 'send-*.json' ! -name .ampoule-outbox | head -n 3)"
[[ -z "$stray" ]] && ok "outbox: only send-<log>-<id>-<key>.json files and the marker" || fail "outbox: stray files: $stray"
sends="$(grep -c '"decision": "send"' "$WORK/expected.jsonl")"
[[ "$(find "$FX/outbox" -name 'send-*.json' | wc -l)" == "$sends" ]] && ok "outbox: one message per send ($sends)" ||
  fail "outbox: $(find "$FX/outbox" -name 'send-*.json' | wc -l) messages for $sends sends"

finish
