#!/usr/bin/env bash
# `volent check` from the outside: exit codes, output lines and the examples
# of examples/node (docs/manifests.md).
#
#   tests/volent/check_cli.sh --volent PATH
#
# Prints "skipped: REASON" when it cannot run; exits non-zero on a failure.
set -u

volent=""
while [ $# -gt 0 ]; do
  case "$1" in
    --volent) volent="$2"; shift 2 ;;
    *) echo "usage: $0 --volent PATH" >&2; exit 2 ;;
  esac
done
[ -n "$volent" ] || { echo "usage: $0 --volent PATH" >&2; exit 2; }
[ -x "$volent" ] || { echo "skipped: $volent is not an executable"; exit 0; }
volent="$(cd "$(dirname "$volent")" && pwd)/$(basename "$volent")"

here="$(cd "$(dirname "$0")" && pwd)"
examples="$here/../../examples/node"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run EXPECTED_CODE ARGS...: runs volent check, keeps stdout and stderr.
run() {
  local expected="$1"
  shift
  "$volent" check "$@" >"$work/out" 2>"$work/err"
  local code=$?
  [ "$code" = "$expected" ] || fail "volent check $* exited $code, expected $expected; $(cat "$work/out" "$work/err")"
}

expect_line() {
  grep -qxF -- "$1" "$work/out" || fail "missing line: $1; got: $(cat "$work/out")"
}

# The examples pass, with and without the configuration.
(cd "$examples" && "$volent" check --config volent.yaml agents/*.agent.yaml agents/*.json) >"$work/out" 2>"$work/err"
code=$?
[ "$code" = 0 ] || fail "examples: exit $code: $(cat "$work/out" "$work/err")"
expect_line "volent.yaml: ok"
expect_line "agents/refund.agent.yaml: ok"
expect_line "agents/triage.agent.yaml: ok"
expect_line "agents/shipping.agent.json: ok"
expect_line "4 files checked: 4 ok, 0 invalid"
run 0 "$examples/agents/refund.agent.yaml"
run 0 "$examples/volent.yaml"
expect_line "$examples/volent.yaml: ok"

# An invalid manifest: one line per problem, exit 1.
cat >"$work/bad.agent.yaml" <<'YAML'
apiVersion: volent/v1
kind: Agent
metadata:
  name: Bad_Name
  colour: blue
spec:
  model: {provider: anthropic, name: claude}
  tools:
    - name: fetch
      kind: grpc
YAML
run 1 "$work/bad.agent.yaml"
b="$work/bad.agent.yaml"
expect_line "$b:4:9: /metadata/name: must be 1 to 63 lowercase letters, digits and \"-\", starting and ending with a letter or digit; found \"Bad_Name\""
expect_line "$b:5:3: /metadata/colour: unknown field \"colour\""
expect_line "$b:10:13: /spec/tools/0/kind: must be one of \"http\", \"wasm\", \"python\", \"js\"; found \"grpc\""
expect_line "1 file checked: 0 ok, 1 invalid"
[ "$(wc -l <"$work/out")" = 4 ] || fail "expected 3 problem lines and a summary: $(cat "$work/out")"

# A capability missing from the allowlist is found only with --config.
sed 's/capability: erp.orders/capability: erp.invoices/' "$examples/agents/refund.agent.yaml" >"$work/refund.agent.yaml"
run 0 "$work/refund.agent.yaml"
run 1 --config "$examples/volent.yaml" "$work/refund.agent.yaml"
expect_line "$work/refund.agent.yaml:26:19: /spec/tools/0/capability: capability \"erp.invoices\" has no entry in the node's egress allowlist"

# Malformed YAML is a problem (exit 1), with its position.
printf 'a: [1, 2\n' >"$work/broken.yaml"
run 1 "$work/broken.yaml"
grep -q "^$work/broken.yaml:[0-9]*:[0-9]*: not well-formed YAML: " "$work/out" || fail "malformed: $(cat "$work/out")"

# Hostile text (docs/threat-model.md, "Manifests (hostile YAML)"): a quoted
# string never closed, before a final line break, is refused at its quote;
# CR-only line breaks are line breaks (YAML 1.2), so a problem has its line.
printf 'apiVersion: volent/v1\nkind: Agent\nmetadata: {name: a}\nspec: {model: {provider: openai, name: "m}}\n' \
  >"$work/unclosed.agent.yaml"
run 1 "$work/unclosed.agent.yaml"
expect_line "$work/unclosed.agent.yaml:4:40: /spec/model/name: this double-quoted string is never closed (no \" before the end of the file)"
printf 'apiVersion: volent/v1\rkind: Agent\rmetadata: {name: a}\rspec: {model: {provider: openai, name: m}}\r' \
  >"$work/cr.agent.yaml"
run 0 "$work/cr.agent.yaml"
printf 'apiVersion: volent/v1\rkind: Agent\rmetadata: {name: A}\rspec: {model: {provider: openai, name: m}}\r' \
  >"$work/cr-bad.agent.yaml"
run 1 "$work/cr-bad.agent.yaml"
grep -q "^$work/cr-bad.agent.yaml:3:18: /metadata/name: " "$work/out" || fail "CR line numbers: $(cat "$work/out")"
# Over the 1 MiB cap: refused unread, as the file's one problem.
head -c 1048577 /dev/zero | tr '\0' ' ' >"$work/big.agent.yaml"
run 1 "$work/big.agent.yaml"
expect_line "$work/big.agent.yaml:1:1: the document is larger than 1048576 bytes"

# Mixed: valid and invalid -> 1; unreadable -> 2, naming the file and why.
run 1 "$examples/agents/triage.agent.yaml" "$work/bad.agent.yaml"
expect_line "2 files checked: 1 ok, 1 invalid"
run 2 "$examples/agents/triage.agent.yaml" "$work/missing.agent.yaml"
grep -qF "$work/missing.agent.yaml: No such file or directory" "$work/err" || fail "unreadable: $(cat "$work/err")"
run 2 "$work"
grep -qF "cannot read $work: it is a directory" "$work/err" || fail "directory: $(cat "$work/err")"

# A FIFO no program writes to is given up on (after the reader's 10 s
# wait), not waited on for ever; one that is written to is read.
mkfifo "$work/silent.agent.yaml"
run 2 "$work/silent.agent.yaml"
grep -qF "nothing came from it" "$work/err" || fail "silent FIFO: $(cat "$work/err")"
run 0 <(cat "$examples/agents/triage.agent.yaml")

# Usage.
run 2
grep -q "^usage: volent check" "$work/err" || fail "no usage on stderr"
run 2 --colour
grep -qF "unknown option '--colour'" "$work/err" || fail "unknown option: $(cat "$work/err")"
run 2 --config
run 0 --help
grep -q "^usage: volent check" "$work/out" || fail "no usage on stdout for --help"

# An invalid configuration given with --config is reported, exit 1.
printf 'apiVersion: volent/v1\nkind: NodeConfig\nlisten: nowhere\n' >"$work/volent.yaml"
run 1 --config "$work/volent.yaml" "$examples/agents/triage.agent.yaml"
expect_line "$work/volent.yaml:3:9: /listen: must be HOST:PORT, e.g. 127.0.0.1:8470 or [::1]:8470; found \"nowhere\""

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "check_cli: all passed"
