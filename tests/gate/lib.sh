# Shared fixture for the trust gate's whole-command tests (docs/gate.md),
# sourced by tests/gate/gate_*.sh. The JSON work is in gate_json.py (python3).
#
#   gate_start NAME "$@"   parses `--ampoule BIN [--kernel K]`, finds the
#                          kernel (prints `skipped: REASON` and exits 0 when
#                          there is none), makes a temporary $WORK removed on
#                          exit, and builds the fixture in $FX:
#     agent.key(.pub)      the trusted signing key; other.key(.pub) an untrusted one
#     refund.py            reads /input/orders.csv, prints one JSON document
#                          {"order":"A-1","refund":"12.50","customer":"ana"}
#     orders.csv           its input
#     refund.out           the run's stdout, as printed
#     refund.receipt.json  the receipt, signed with agent.key
#     policy.json          trusts agent.key.pub, pins the kernel, 1 day of data
#                          age, the default fuel budget as replay ceiling,
#                          decision_log gate.db and outbox outbox/
#   write_draft FILE KEY [name=VALUE ...]   an action draft (see below)
#   submit DRAFT [ARGS...] runs `ampoule gate submit DRAFT --policy $POLICY
#                          --kernel $KERNEL ARGS...` and sets RC, OUT, ERR,
#                          LAST (last stdout line), REASONS (the `reason:`
#                          lines, without the prefix, one per line)
#   ok/fail/check          per-case result lines; finish prints the summary
#                          and exits 1 on any failure
#
# Each replay of the tiny program costs a few tenths of a second, so the
# scripts run each real receipt once and change only the draft or policy
# around it where they can.

set -uo pipefail

AMPOULE="" KERNEL="${AMPOULE_KERNEL:-}" WORK="" FX="" POLICY="" KERNEL_SHA=""
RC=0 OUT="" ERR="" LAST="" REASONS=""
GATE_JSON="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/gate_json.py"  # absolute: the tests change folders
gate_json() { python3 "$GATE_JSON" "$@"; }
passed=0 failed=0 SCRIPT_NAME=""

ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL: $1"
  shift
  local line
  for line in "$@"; do printf '  %s\n' "$line"; done
}
# check NAME COMMAND...: ok when COMMAND succeeds.
check() {
  local name="$1"; shift
  if "$@"; then ok "$name"; else fail "$name" "check failed: $*"; fi
}
finish() {
  echo "$SCRIPT_NAME: $passed passed, $failed failed"
  ((failed == 0)) && exit 0
  exit 1
}

gate_start() {
  SCRIPT_NAME="$1"; shift
  while (($#)); do
    case "$1" in
      --ampoule) AMPOULE="${2:-}"; shift 2 || break ;;
      --kernel) KERNEL="${2:-}"; shift 2 || break ;;
      *) echo "usage: $0 --ampoule BIN [--kernel K]" >&2; exit 2 ;;
    esac
  done
  [[ -n "$AMPOULE" ]] || { echo "usage: $0 --ampoule BIN [--kernel K]" >&2; exit 2; }
  [[ -x "$AMPOULE" ]] || { echo "skipped: ampoule binary '$AMPOULE' not found"; exit 0; }
  command -v python3 >/dev/null || { echo "skipped: python3 not found (JSON in the fixture)"; exit 0; }
  if [[ -z "$KERNEL" ]]; then KERNEL="$("$AMPOULE" kernel path 2>/dev/null || true)"; fi
  if [[ ! -f "$KERNEL" ]]; then
    echo "skipped: no kernel file; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL"
    exit 0
  fi
  AMPOULE="$(cd "$(dirname "$AMPOULE")" && pwd)/$(basename "$AMPOULE")"
  KERNEL="$(cd "$(dirname "$KERNEL")" && pwd)/$(basename "$KERNEL")"
  WORK="$(mktemp -d "/tmp/ampoule-$SCRIPT_NAME-XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  FX="$WORK/fx"
  mkdir -p "$FX"
  make_fixture || { echo "$SCRIPT_NAME: the fixture could not be built"; exit 1; }
}

# sha256 FILE: the hex digest of FILE's bytes.
sha256() { sha256sum "$1" | cut -d' ' -f1; }

# now_utc [OFFSET_SECONDS]: RFC 3339 UTC time stamp, now plus the offset.
now_utc() { date -u -d "@$(($(date +%s) + ${1:-0}))" +%Y-%m-%dT%H:%M:%SZ; }

# run_signed DIR PROGRAM OUTPUT RECEIPT [RUN ARGS...]: `ampoule run` in DIR,
# signed with DIR/agent.key unless RUN ARGS give another --key; stdout to
# OUTPUT. Returns the run's exit status.
run_signed() {
  local dir="$1" program="$2" output="$3" receipt="$4"; shift 4
  local key=(--key agent.key)
  [[ " $* " == *" --key "* ]] && key=()
  (cd "$dir" && "$AMPOULE" run "$program" --kernel "$KERNEL" "${key[@]}" -o "$receipt" "$@" \
     >"$output" 2>"$WORK/run.err" </dev/null)
}

make_fixture() {
  (cd "$FX" && "$AMPOULE" keygen -o agent.key >/dev/null && "$AMPOULE" keygen -o other.key >/dev/null) || return 1
  cat >"$FX/refund.py" <<'EOF'
import json
rows = [line.strip().split(",") for line in open("/input/orders.csv") if line.strip()]
order, refund, customer = rows[-1]
print(json.dumps({"order": order, "refund": refund, "customer": customer}))
EOF
  printf 'A-1,12.50,ana\n' >"$FX/orders.csv"
  if ! run_signed "$FX" refund.py refund.out refund.receipt.json --input orders.csv=orders.csv; then
    echo "ampoule run failed on kernel $KERNEL:"; sed 's/^/  /' "$WORK/run.err" | head -20
    return 1
  fi
  KERNEL_SHA="$("$AMPOULE" kernel info "$KERNEL" 2>/dev/null | awk '$1 == "sha256" {print $2; exit}')"
  [[ "$KERNEL_SHA" =~ ^[0-9a-f]{64}$ ]] || KERNEL_SHA="$(sha256 "$KERNEL")"
  POLICY="$FX/policy.json"
  write_policy "$POLICY"
}

# write_policy FILE [name=JSON ...]: the fixture's policy with fields
# replaced (name=JSON) or removed (name=-).
write_policy() {
  local file="$1"; shift
  gate_json policy "$file" "$KERNEL_SHA" "$@"
}

# write_draft FILE KEY [name=VALUE ...]: an action draft for the fixture's
# refund. Names (VALUE is JSON unless said otherwise):
#   fields=JSON   default {"amount": {"value": "12.50", "from": "/refund"},
#                          "recipient": {"value": "ana", "from": "/customer"}}
#   as_of=TEXT    data_as_of (default: now, UTC)
#   kind=TEXT     default "refund"
#   receipt=P program=P output=P stdin=P (paths, text)   default the fixture's
#   inputs=JSON   default {"orders.csv": "orders.csv"}
#   NAME=JSON     any other top-level field set to JSON; NAME=- removes it
#   evidence.NAME=JSON  the same inside evidence
write_draft() {
  local file="$1" key="$2"; shift 2
  gate_json draft "$file" "$key" "$(now_utc)" "$@"
}

# submit DRAFT [ARGS...]: see the header. Also sets SUBMIT_DRAFT and
# SUBMIT_RECEIPT (the receipt the gate should have used: --receipt, else the
# draft's evidence.receipt), and OUTBOX_BEFORE (files in $OUTBOX before).
OUTBOX=""
submit() {
  local draft="$1"; shift
  SUBMIT_DRAFT="$draft" SUBMIT_RECEIPT=""
  local args=("$@") i
  for ((i = 0; i < ${#args[@]}; i++)); do
    [[ "${args[i]}" == --receipt ]] && SUBMIT_RECEIPT="${args[i + 1]:-}"
  done
  if [[ -z "$SUBMIT_RECEIPT" && -f "$draft" ]]; then
    SUBMIT_RECEIPT="$(gate_json draft-receipt "$draft" 2>/dev/null)"
  fi
  OUTBOX_BEFORE="$(outbox_files "${OUTBOX:-$FX/outbox}")"
  OUT="$("$AMPOULE" gate submit "$draft" --policy "$POLICY" --kernel "$KERNEL" "$@" 2>"$WORK/submit.err" </dev/null)"
  RC=$?
  ERR="$(cat "$WORK/submit.err")"
  LAST="$(printf '%s\n' "$OUT" | tail -n 1)"
  REASONS="$(printf '%s\n' "$OUT" | sed -n 's/^reason: //p')"
}

# describe: the last submission, for a FAIL line.
describe() {
  printf 'exit %s; stdout:\n%s\nstderr:\n%s\n' "$RC" "$(printf '%s' "$OUT" | sed 's/^/    /')" \
    "$(printf '%s' "$ERR" | head -15 | sed 's/^/    /')"
}

# outbox_messages DIR KEY: how many send-*.json messages in DIR carry KEY.
outbox_messages() {
  gate_json outbox-messages "$1" "$2"
}

# outbox_files DIR: how many files of any name DIR holds (0 when missing),
# but for the marker .ampoule-outbox naming the decision log it belongs to
# (made by the first submission on the outbox, whatever it decides).
outbox_files() { if [[ -d "$1" ]]; then find "$1" -mindepth 1 ! -name .ampoule-outbox | wc -l; else echo 0; fi; }

# outbox_owner DIR: the decision log identity DIR's marker names ("" if none).
outbox_owner() { gate_json outbox-owner "$1"; }

# log_json ARGS...: `ampoule gate log ARGS... --json` into $WORK/log.jsonl;
# returns its exit status.
log_json() {
  "$AMPOULE" gate log "$@" --json >"$WORK/log.jsonl" 2>"$WORK/log.err" </dev/null
}

# log_count FILTER: rows of $WORK/log.jsonl matching a Python expression over
# row `r` (e.g. 'r["decision"] == "send"').
log_count() {
  gate_json log-count "$WORK/log.jsonl" "$1"
}
