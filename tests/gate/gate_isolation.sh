#!/usr/bin/env bash
# The policy's minimum isolation from the outside (docs/gate.md, "min_isolation"):
# a receipt says how its run was sealed (none, jail, vm), and the gate refuses
# one below the policy's minimum, naming both.
#
#   tests/gate/gate_isolation.sh --ampoule BIN [--kernel K]
#
#   - a run with --insecure-no-jail is refused by a policy requiring jail
#     (explicitly, and by default when the policy names no minimum), while
#     the jailed run of the same program is sent; with `min_isolation: none`
#     the unjailed one is sent too (its replay, in the sandbox, matches)
#   - `min_isolation: vm` refuses the jailed run, naming jail and vm
#   - a policy naming a minimum that is not one of none, jail, vm is an error
#   - with python3 cryptography, receipts re-signed by the trusted key: an
#     isolation spelt "jail " or "Jail" is refused (the receipt fails), an
#     older receipt (version 3, no isolation) is unknown, refused by a
#     minimum of jail and sent under none
#
# Prints `ok`/`FAIL` per case and a summary; exit 1 on any failure;
# `skipped: REASON` (exit 0) without a kernel.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gate_start gate_isolation "$@"
cd "$FX"
OUTBOX="$FX/outbox"

# expect NAME CODE WORD [REGEX]: the last submission exited CODE with last
# line WORD, and some reason matches REGEX (grep -E, case-insensitive).
expect() {
  local name="$1" code="$2" word="$3" re="${4:-}" problems=()
  [[ "$RC" == "$code" ]] || problems+=("exit $RC, wanted $code")
  [[ "$LAST" == "$word" ]] || problems+=("last line '$LAST', wanted '$word'")
  if [[ -n "$re" ]] && ! grep -qiE -- "$re" <<<"$REASONS"; then problems+=("no reason matches /$re/"); fi
  if ((${#problems[@]} == 0)); then ok "$name"; else fail "$name" "${problems[@]}" "$(describe)"; fi
}
expect_error() {  # NAME REGEX: exit 2, last line ERROR: matching REGEX
  local name="$1" re="$2" problems=()
  [[ "$RC" == 2 ]] || problems+=("exit $RC, wanted 2")
  [[ "$LAST" == "ERROR: "?* ]] && grep -qiE -- "$re" <<<"$LAST" || problems+=("last line '$LAST', wanted ERROR: /$re/")
  if ((${#problems[@]} == 0)); then ok "$name"; else fail "$name" "${problems[@]}" "$(describe)"; fi
}

# The fixture's receipt is of a jailed run; the same program without the jail:
if ! run_signed "$FX" refund.py nojail.out nojail.receipt.json --input orders.csv=orders.csv --insecure-no-jail; then
  fail "ampoule run --insecure-no-jail" "$(cat "$WORK/run.err")"
  finish
fi
nojail=(receipt=nojail.receipt.json output=nojail.out)

# --- The default policy names no minimum: jail is required ---------------------
write_draft jailed.json refund:jailed
submit jailed.json
expect "send: the jailed run under the default policy" 0 SEND
write_draft nojail.json refund:nojail "${nojail[@]}"
submit nojail.json
expect "refuse: the unjailed run under the default policy (minimum jail)" 1 REFUSE \
  "isolation.*none.*minimum.*jail"

# --- An explicit minimum --------------------------------------------------------
POLICY="$FX/policy-jail.json"
write_policy "$POLICY" min_isolation='"jail"'
write_draft nojail-2.json refund:nojail-2 "${nojail[@]}"
submit nojail-2.json
expect "refuse: the unjailed run under min_isolation jail" 1 REFUSE "isolation.*none.*minimum.*jail"
write_draft jailed-2.json refund:jailed-2
submit jailed-2.json
expect "send: the jailed run under min_isolation jail" 0 SEND

POLICY="$FX/policy-none.json"
write_policy "$POLICY" min_isolation='"none"'
write_draft nojail-3.json refund:nojail-3 "${nojail[@]}"
submit nojail-3.json
expect "send: the unjailed run under min_isolation none (replayed in the sandbox, matched)" 0 SEND

POLICY="$FX/policy-vm.json"
write_policy "$POLICY" min_isolation='"vm"'
write_draft jailed-4.json refund:jailed-4
submit jailed-4.json
expect "refuse: the jailed run under min_isolation vm, naming both" 1 REFUSE "isolation.*jail.*minimum.*vm"

for bad in '"Jail"' '"jail "' '"unknown"' '""' '5' 'null'; do
  POLICY="$FX/policy-bad.json"
  write_policy "$POLICY" min_isolation="$bad"
  write_draft bad.json refund:bad
  submit bad.json
  expect_error "error: min_isolation $bad" "min_isolation"
done

# --- Receipts re-signed by the trusted key ----------------------------------------
if python3 -c 'import cryptography.hazmat.primitives.asymmetric.ed25519' 2>/dev/null; then
  POLICY="$FX/policy-none.json"  # the refusal below is the receipt's, not the minimum's
  for value in '"jail "' '"Jail"'; do
    gate_json forge nojail.receipt.json relabelled.receipt.json agent.key "st['predicate']['isolation'] = $value"
    write_draft relabelled.json "refund:relabelled-$RANDOM" receipt=relabelled.receipt.json output=nojail.out
    submit relabelled.json
    expect "refuse: isolation $value re-signed by the trusted key" 1 REFUSE "does not verify"
    check "the check names the isolation's value ($value)" grep -qF "isolation $value is not one of none, jail or vm" <<<"$ERR"
  done
  gate_json forge nojail.receipt.json older.receipt.json agent.key \
    "st['predicate'].pop('isolation', None); st['predicateType'] = 'https://ampoule.dev/attestations/run/v3'"
  POLICY="$FX/policy-jail.json"
  write_draft older.json refund:older receipt=older.receipt.json output=nojail.out
  submit older.json
  expect "refuse: a version 3 receipt (no isolation) under min_isolation jail" 1 REFUSE \
    "isolation.*unknown.*minimum.*jail"
  POLICY="$FX/policy-none.json"
  submit older.json
  expect "send: a version 3 receipt under min_isolation none" 0 SEND
else
  echo "note: python3 cryptography not found: receipts re-signed by the trusted key not checked"
fi

finish
