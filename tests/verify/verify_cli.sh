#!/usr/bin/env bash
# ampoule-verify from the outside (docs/cli.md): exit codes, the one result line
# on stdout, and replay, with real receipts from `ampoule run`.
#
#   tests/verify/verify_cli.sh --ampoule BIN --verify BIN [--kernel K] [--corpus DIR] [--insecure-no-jail]
#
# Without a kernel only the cases that need none run (usage, unreadable,
# garbage and oversized receipts, weak keys), and the script says so. With
# --corpus, every Python and JavaScript program of DIR (tests/corpus) is run
# with a receipt, verified and replayed: each must replay REPLAY OK (or
# REPLAY MATCHED, RUN FAILED for a program that exits non-zero).
#
# Prints `ok`/`FAIL` per case and a summary; exit 1 on any failure;
# `skipped: REASON` (exit 0) when nothing at all can run.
set -uo pipefail

AMPOULE="" VERIFY="" KERNEL="${AMPOULE_KERNEL:-}" CORPUS="" RUN_ARGS=()
while (($#)); do
  case "$1" in
    --ampoule) AMPOULE="$2"; shift 2 ;;
    --verify) VERIFY="$2"; shift 2 ;;
    --kernel) KERNEL="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --insecure-no-jail) RUN_ARGS+=(--insecure-no-jail); shift ;;
    *) echo "usage: $0 --ampoule BIN --verify BIN [--kernel K] [--corpus DIR] [--insecure-no-jail]" >&2; exit 2 ;;
  esac
done
[[ -x "$AMPOULE" && -x "$VERIFY" ]] || { echo "skipped: ampoule or ampoule-verify binary not found"; exit 0; }
if [[ -z "$KERNEL" ]]; then KERNEL="$("$AMPOULE" kernel path 2>/dev/null || true)"; fi
[[ -f "$KERNEL" ]] || KERNEL=""
if [[ -n "$CORPUS" && -z "$KERNEL" ]]; then
  echo "skipped: no kernel file; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL"
  exit 0
fi

RECEIPTS="$(cd "$(dirname "$0")" && pwd)/receipts.py"  # receipts read and changed after the fact
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/schemas/run-receipt.schema.json"  # the statement's JSON Schema
WORK="$(mktemp -d /tmp/ampoule-verify-cli-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
passed=0 failed=0

# expect NAME CODE LINE_REGEX COMMAND...: exit code, exactly one stdout line
# matching the regex (anchored).
expect() {
  local name="$1" code="$2" line_re="$3"; shift 3
  local out err rc
  out="$("$@" 2>"$WORK/err")"; rc=$?
  err="$(cat "$WORK/err")"
  local lines; lines="$(printf '%s' "$out" | grep -c '')"
  if [[ "$rc" == "$code" && "$lines" == 1 && "$out" =~ ^($line_re)$ ]]; then
    passed=$((passed + 1)); echo "ok: $name"
  else
    failed=$((failed + 1))
    echo "FAIL: $name: exit $rc (wanted $code), stdout '$out' (wanted /$line_re/, one line)"
    printf '  stderr: %s\n' "$err" | head -20
  fi
}

# Both spellings of the command must agree.
both() {
  local name="$1" code="$2" line_re="$3"; shift 3
  expect "$name" "$code" "$line_re" "$VERIFY" "$@"
  expect "$name (ampoule verify)" "$code" "$line_re" "$AMPOULE" verify "$@"
}

# --- Cases that need no kernel -------------------------------------------------
"$AMPOULE" keygen -o key >/dev/null
"$AMPOULE" keygen -o other >/dev/null
printf 'ed25519 AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n' > weak.pub
printf 'not json' > garbage.json
: > empty.json
printf '{}' > huge.json && truncate -s 67108865 huge.json
both "no arguments" 2 "ERROR: .*"
both "no key" 2 "ERROR: .*" garbage.json
both "unknown option" 2 "ERROR: .*" garbage.json --key key.pub --frobnicate
both "missing receipt" 2 "ERROR: .*" missing.json --key key.pub
both "garbage receipt" 1 "FAILED" garbage.json --key key.pub
both "empty receipt" 1 "FAILED" empty.json --key key.pub
both "receipt over 64 MiB" 6 "TOO LARGE: .*" huge.json --key key.pub
both "weak key" 2 "ERROR: .*" garbage.json --key weak.pub
both "secret key as --key" 2 "ERROR: .*" garbage.json --key key
both "replay without kernel" 2 "ERROR: .*" --replay garbage.json --program x.py
# Readers that must not hang (docs/threat-model.md): a FIFO no program
# writes to is given up on after the documented wait, a kernel must be a
# regular file (so /dev/zero and FIFOs are refused at once), and a world-
# writable trusted-keys file is refused.
mkfifo nowriter.fifo
both "kernel is a FIFO" 2 "ERROR: .*" garbage.json --key key.pub --kernel nowriter.fifo
both "kernel is /dev/zero" 2 "ERROR: .*" garbage.json --key key.pub --kernel /dev/zero
expect "program is a FIFO with no writer" 2 "ERROR: .*" "$VERIFY" garbage.json --key key.pub --program nowriter.fifo
if grep -q "nothing came from it" "$WORK/err"; then passed=$((passed + 1)); echo "ok: the FIFO is named as silent"; else
  failed=$((failed + 1)); echo "FAIL: no 'nothing came from it' for a silent FIFO: $(cat "$WORK/err")"; fi
# A pipe is read once: each spelling gets its own.
expect "receipt from a pipe" 1 "FAILED" "$VERIFY" <(cat garbage.json) --key key.pub
expect "receipt from a pipe (ampoule verify)" 1 "FAILED" "$AMPOULE" verify <(cat garbage.json) --key key.pub
cp key.pub loose.pub && chmod 0666 loose.pub
both "world-writable key file" 2 "ERROR: .*" garbage.json --key loose.pub
cat key.pub > loose-trusted.txt && chmod 0664 loose-trusted.txt
both "group-writable trusted keys" 2 "ERROR: .*" garbage.json --trusted-keys loose-trusted.txt
both "ceiling flag without --replay" 2 "ERROR: .*" garbage.json --key key.pub --max-fuel 10

if grep -q "^usage: ampoule-verify" <<<"$("$VERIFY" --help)"; then passed=$((passed + 1)); echo "ok: --help"; else
  failed=$((failed + 1)); echo "FAIL: --help"; fi

if [[ -z "$KERNEL" ]]; then
  echo "note: no kernel file (scripts/build-kernel.sh, or AMPOULE_KERNEL): receipts from ampoule run not checked"
  echo "verify_cli: $passed passed, $failed failed"
  ((failed == 0))
  exit
fi

# --- Real receipts ------------------------------------------------------------
run() { "$AMPOULE" run "$@" --kernel "$KERNEL" "${RUN_ARGS[@]}" --key key >/dev/null 2>"$WORK/run.err"; }
K=(--kernel "$KERNEL")

printf 'import sys\nrows = [int(x) for x in open("/input/amounts.csv")]\nprint(sum(rows))\n' > sum.py
printf '10\n20\n12\n' > amounts.csv
printf '42\n' > expected.txt
run sum.py --input amounts.csv=amounts.csv -o ok.json
if [[ ! -s ok.json ]]; then
  echo "FAIL: ampoule run made no receipt on kernel $KERNEL:"; sed 's/^/  /' "$WORK/run.err" | head -20
  echo "verify_cli: $passed passed, $((failed + 1)) failed"
  exit 1
fi
both "genuine receipt, all files" 0 "VERIFIED" ok.json --key key.pub "${K[@]}" --program sum.py \
  --input amounts.csv=amounts.csv --output expected.txt
both "kernel not given" 5 "INCOMPLETE" ok.json --key key.pub
cat other.pub key.pub > trusted.txt
both "trusted keys file" 0 "VERIFIED" ok.json --trusted-keys trusted.txt "${K[@]}"
both "wrong key" 1 "FAILED" ok.json --key other.pub "${K[@]}"
printf '43\n' > wrong.txt
both "another output" 1 "FAILED" ok.json --key key.pub "${K[@]}" --output wrong.txt
both "another input" 1 "FAILED" ok.json --key key.pub "${K[@]}" --input amounts.csv=wrong.txt
both "another program" 1 "FAILED" ok.json --key key.pub "${K[@]}" --program wrong.txt
both "another kernel" 1 "FAILED" ok.json --key key.pub --kernel wrong.txt
both "replay" 0 "REPLAY OK" --replay ok.json --key key.pub "${K[@]}" --program sum.py \
  --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
both "replay without a key" 0 "REPLAY OK" --replay ok.json "${K[@]}" --program sum.py \
  --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
expect "replay, program and input from pipes" 0 "REPLAY OK" "$VERIFY" --replay ok.json "${K[@]}" \
  --program <(cat sum.py) --input amounts.csv=<(cat amounts.csv) "${RUN_ARGS[@]}"
both "replay under a lower fuel ceiling" 1 "REPLAY FAILED: fuel over the verifier's ceiling of 1000" --replay ok.json \
  "${K[@]}" --program sum.py --input amounts.csv=amounts.csv --max-fuel 1000 "${RUN_ARGS[@]}"
# An unsigned receipt asking for endless fuel and time: the replay is
# bounded by the verifier's ceilings, not the receipt's claims.
python3 "$RECEIPTS" greedy ok.json greedy.json
both "unsigned receipt asking for endless fuel" 1 "REPLAY FAILED: fuel over the verifier's ceiling of 100000000000" \
  --replay greedy.json "${K[@]}" --program sum.py --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
both "replay without the input" 2 "ERROR: .*" --replay ok.json "${K[@]}" --program sum.py "${RUN_ARGS[@]}"
both "replay, another input" 1 "REPLAY FAILED: .*" --replay ok.json "${K[@]}" --program sum.py \
  --input amounts.csv=wrong.txt "${RUN_ARGS[@]}"

# The amount altered after the run: the stdout digest in the statement is
# replaced (a forger without the key), then re-signed with the forger's key.
python3 "$RECEIPTS" tampered ok.json tampered.json
both "altered amount" 1 "FAILED" tampered.json --key key.pub "${K[@]}"
both "altered amount, replayed" 1 "REPLAY FAILED: stdout differs" --replay tampered.json "${K[@]}" \
  --program sum.py --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"

printf 'import sys\nprint("partial")\nsys.exit(3)\n' > three.py
run three.py -o three.json
both "nonzero status" 4 "RUN FAILED" three.json --key key.pub "${K[@]}"
both "nonzero status, replayed" 4 "REPLAY MATCHED, RUN FAILED" --replay three.json "${K[@]}" --program three.py "${RUN_ARGS[@]}"

printf 'n = 0\nwhile True:\n    n += 1\n' > spin.py
run spin.py --fuel 2000000 -o fuel.json
both "out of fuel" 4 "RUN FAILED" fuel.json --key key.pub "${K[@]}"
both "out of fuel, no kernel (4 > 5)" 4 "RUN FAILED" fuel.json --key key.pub
both "out of fuel, replayed" 4 "REPLAY MATCHED, RUN FAILED" --replay fuel.json "${K[@]}" --program spin.py "${RUN_ARGS[@]}"

run spin.py --timeout 1 -o terminated.json
both "terminated" 3 "NOT REPLAYABLE" terminated.json --key key.pub "${K[@]}"
both "terminated, wrong output (1 > 3)" 1 "FAILED" terminated.json --key key.pub "${K[@]}" --output wrong.txt
both "terminated, replayed" 3 "REPLAY N/A" --replay terminated.json "${K[@]}" --program spin.py "${RUN_ARGS[@]}"

printf 'let s = 0; for (let i = 1; i <= 100; i++) s += i; console.log(s);\n' > sum.js
run sum.js -o js.json
both "javascript" 0 "VERIFIED" js.json --key key.pub "${K[@]}" --program sum.js
both "javascript, replayed" 0 "REPLAY OK" --replay js.json "${K[@]}" --program sum.js "${RUN_ARGS[@]}"

# --- Output files ----------------------------------------------------------------
# A report the program leaves in /output leaves the run: written by
# --outputs, a subject of the receipt, checked by --output-file, compared by
# replay. A file changed after the run is FAILED; /tmp is not an output.
cat > report.py <<'PY'
import json, os
os.makedirs("/output/tables", exist_ok=True)
json.dump({"total": 42}, open("/output/report.json", "w"))
open("/output/tables/rows.csv", "w").write("a,b\n1,2\n")
open("/tmp/scratch.txt", "w").write("not an output")
print("ok")
PY
run report.py -o report.json --outputs out
if [[ -f out/report.json && -f out/tables/rows.csv && ! -e out/scratch.txt ]]; then
  passed=$((passed + 1)); echo "ok: --outputs wrote the two output files"
else
  failed=$((failed + 1)); echo "FAIL: --outputs: $(find out 2>&1 | tr '\n' ' ')"; sed 's/^/  /' "$WORK/run.err" | head
fi
both "output files verify" 0 "VERIFIED" report.json --key key.pub "${K[@]}" \
  --output-file report.json=out/report.json --output-file tables/rows.csv=out/tables/rows.csv
printf '{"total": 43}' > forged.json
both "an output file changed after the run" 1 "FAILED" report.json --key key.pub "${K[@]}" \
  --output-file report.json=forged.json
both "a file the run did not output" 1 "FAILED" report.json --key key.pub "${K[@]}" \
  --output-file scratch.txt=out/report.json
both "an output file name that climbs" 2 "ERROR: .*" report.json --key key.pub --output-file ../x=out/report.json
both "output files, replayed" 0 "REPLAY OK" --replay report.json "${K[@]}" --program report.py "${RUN_ARGS[@]}"
# A link planted in the output folder must not carry a write elsewhere.
mkdir -p planted elsewhere && ln -s "$WORK/elsewhere" planted/tables
"$AMPOULE" run report.py --kernel "$KERNEL" "${RUN_ARGS[@]}" --outputs planted >/dev/null 2>"$WORK/run.err"
rc=$?
if [[ $rc == 125 && -z "$(ls -A elsewhere)" ]] && grep -q "must be a real folder" "$WORK/run.err"; then
  passed=$((passed + 1)); echo "ok: a planted link in the output folder is not followed"
else
  failed=$((failed + 1)); echo "FAIL: planted link: exit $rc, elsewhere holds '$(ls -A elsewhere)'"
  sed 's/^/  /' "$WORK/run.err" | head
fi

# --- Isolation: the receipt says how the run was sealed -----------------------
# docs/receipt-spec.md, "isolation": a run with --insecure-no-jail says `none`,
# a jailed one `jail`; the verifier prints it on its own stderr line; the
# value is checked exactly (only the key holder can relabel, and a spelling
# that is not one of the names is FAILED); replay, which runs in its own
# sandbox, does not compare it; an older receipt without it is `unknown`.
JAILED=jail
[[ " ${RUN_ARGS[*]} " == *" --insecure-no-jail "* ]] && JAILED=none
# isolation_said: the value of the verifier's last `isolation:` line ("" if none).
isolation_said() { sed -n -E 's/^ampoule[ -]verify: isolation: ([a-z]+).*/\1/p' "$WORK/err" | tail -n 1; }
said() {  # NAME WANT
  local got; got="$(isolation_said)"
  if [[ "$got" == "$2" ]]; then passed=$((passed + 1)); echo "ok: $1"; else
    failed=$((failed + 1)); echo "FAIL: $1: the verifier said isolation '$got', wanted '$2'"
    sed 's/^/  /' "$WORK/err" | head -10; fi
}
signed_isolation() {  # NAME RECEIPT WANT
  local got; got="$(python3 "$RECEIPTS" isolation "$2" 2>&1)"
  if [[ "$got" == "$3" ]]; then passed=$((passed + 1)); echo "ok: $1"; else
    failed=$((failed + 1)); echo "FAIL: $1: the predicate's isolation is '$got', wanted '$3'"; fi
}
"$AMPOULE" run sum.py --kernel "$KERNEL" --insecure-no-jail --key key -o nojail.json \
  --input amounts.csv=amounts.csv >/dev/null 2>"$WORK/run.err"
signed_isolation "an unjailed run's predicate says none" nojail.json none
signed_isolation "a jailed run's predicate says $JAILED" ok.json "$JAILED"
both "unjailed receipt verifies (the verdict is about the signature and files)" 0 "VERIFIED" nojail.json \
  --key key.pub "${K[@]}" --program sum.py --input amounts.csv=amounts.csv --output expected.txt
said "the verifier prints isolation none" none
expect "jailed receipt" 0 "VERIFIED" "$VERIFY" ok.json --key key.pub "${K[@]}"
said "the verifier prints isolation $JAILED" "$JAILED"
both "unjailed receipt, replayed in the sandbox: the isolation is not compared" 0 "REPLAY OK" --replay nojail.json \
  --key key.pub "${K[@]}" --program sum.py --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
said "the replay prints the receipt's isolation" none
if python3 -c 'import jsonschema' 2>/dev/null; then
  for r in ok.json nojail.json; do
    if out="$(python3 "$RECEIPTS" schema "$r" "$SCHEMA" 2>&1)"; then passed=$((passed + 1)); echo "ok: $r fits $(basename "$SCHEMA")"
    else failed=$((failed + 1)); echo "FAIL: $r does not fit $SCHEMA: $(tail -n 3 <<<"$out")"; fi
  done
else
  echo "note: python3 jsonschema not found: receipts not checked against $SCHEMA"
fi
if python3 -c 'import cryptography.hazmat.primitives.asymmetric.ed25519' 2>/dev/null; then
  # Re-signed with the signing key itself: the signature holds, so what is
  # refused is the value's meaning.
  for value in '"jail "' '"Jail"' '"JAIL"' '""' '"unknown"' '"sandbox"' 'null' '1' '["jail"]'; do
    python3 "$RECEIPTS" relabel nojail.json relabelled.json key "$value"
    both "isolation $value, re-signed by the key holder" 1 "FAILED" relabelled.json --key key.pub "${K[@]}"
    expect "isolation $value, replayed" 1 "REPLAY FAILED: .*" "$VERIFY" --replay relabelled.json "${K[@]}" \
      --program sum.py --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
  done
  python3 "$RECEIPTS" relabel nojail.json relabelled.json key -
  both "isolation removed from a version 4 receipt, re-signed" 1 "FAILED" relabelled.json --key key.pub "${K[@]}"
  # An older receipt (version 3, no isolation): verifies, and says unknown.
  python3 "$RECEIPTS" relabel nojail.json older.json key v3
  both "a version 3 receipt without isolation" 0 "VERIFIED" older.json --key key.pub "${K[@]}"
  said "the verifier prints isolation unknown for it" unknown
  both "a version 3 receipt, replayed" 0 "REPLAY OK" --replay older.json --key key.pub "${K[@]}" \
    --program sum.py --input amounts.csv=amounts.csv "${RUN_ARGS[@]}"
  # The key holder can relabel none as jail: the signature is what stops
  # anyone else (next case); the gate's minimum trusts the signer's word.
  python3 "$RECEIPTS" relabel nojail.json relabelled.json key '"jail"'
  expect "none relabelled jail by the key holder" 0 "VERIFIED" "$VERIFY" relabelled.json --key key.pub "${K[@]}"
  said "it then says jail" jail
  python3 "$RECEIPTS" relabel nojail.json relabelled-other.json other '"jail"'
  both "none relabelled jail without the key" 1 "FAILED" relabelled-other.json --key key.pub "${K[@]}"
else
  echo "note: python3 cryptography not found: relabelled receipts not checked"
fi

# --- The corpus: every program replays ----------------------------------------
if [[ -n "$CORPUS" ]]; then
  for program in "$CORPUS"/python/*.py "$CORPUS"/js/*.js; do
    stem="$(basename "${program%.*}")"
    args=() in_args=()
    if [[ -d "$(dirname "$program")/input/$stem" ]]; then
      for f in "$(dirname "$program")/input/$stem"/*; do
        [[ -f "$f" ]] && in_args+=(--input "$(basename "$f")=$f")
      done
    fi
    stdin="$(dirname "$program")/$stem.stdin"
    [[ -f "$stdin" ]] && in_args+=(--stdin "$stdin")
    "$AMPOULE" run "$program" --kernel "$KERNEL" "${RUN_ARGS[@]}" --key key -o "c-$stem.json" \
      "${in_args[@]}" </dev/null >/dev/null 2>&1
    status="$(python3 "$RECEIPTS" status "c-$stem.json" 2>/dev/null || echo none)"
    if [[ "$status" == 0 ]]; then want=0 line="REPLAY OK"; else want=4 line="REPLAY MATCHED, RUN FAILED"; fi
    expect "corpus $stem (status $status)" "$want" "$line" "$VERIFY" --replay "c-$stem.json" --key key.pub \
      "${K[@]}" --program "$program" "${in_args[@]}" "${RUN_ARGS[@]}"
  done
fi

echo "verify_cli: $passed passed, $failed failed"
((failed == 0))
