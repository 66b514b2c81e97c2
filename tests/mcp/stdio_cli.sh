#!/usr/bin/env bash
# `ampoule mcp` over real stdin and stdout (docs/mcp.md), driven by a small
# python3 client: initialize, notifications/initialized, tools/list,
# tools/call run_python (its receipt then checked by verify_receipt, also
# with replay), three calls in flight at once, an unknown method, and the
# end of stdin ending the server with exit 0. Every line on stdout must be
# one JSON-RPC message. Also the usage errors (no --key: exit 2) and --help.
#
#   tests/mcp/stdio_cli.sh --ampoule BIN [--kernel K]
#
# Prints `ok`/`FAIL` per check and `stdio_cli: N passed, N failed`; exit 1
# on any failure; `skipped: REASON` (exit 0) without a kernel or python3.
set -uo pipefail

AMPOULE="" KERNEL="${AMPOULE_KERNEL:-}"
while (($#)); do
  case "$1" in
    --ampoule) AMPOULE="${2:-}"; shift 2 || break ;;
    --kernel) KERNEL="${2:-}"; shift 2 || break ;;
    *) AMPOULE=""; break ;;
  esac
done
if [[ -z "$AMPOULE" ]]; then
  echo "usage: $0 --ampoule BIN [--kernel K]" >&2
  exit 2
fi
[[ -x "$AMPOULE" ]] || { echo "skipped: ampoule binary $AMPOULE not found"; exit 0; }
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 0; }
if [[ -z "$KERNEL" ]]; then KERNEL="$("$AMPOULE" kernel path 2>/dev/null)" || KERNEL=""; fi
if [[ -z "$KERNEL" || ! -f "$KERNEL" ]]; then
  echo "skipped: no kernel found by 'ampoule kernel path'; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ampoule-mcp-test-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

"$AMPOULE" keygen -o "$WORK/agent.key" >/dev/null 2>&1 || { echo "FAIL: keygen"; exit 1; }

# Usage.
"$AMPOULE" mcp --kernel "$KERNEL" </dev/null >"$WORK/nokey.out" 2>"$WORK/nokey.err"
rc=$?
if [[ $rc == 2 && ! -s "$WORK/nokey.out" ]] && grep -q -- "--key" "$WORK/nokey.err"; then
  ok "no --key: exit 2, the message names --key, nothing on stdout"
else
  fail "no --key: exit $rc"
fi
if "$AMPOULE" mcp --help | grep -q "ampoule mcp --key KEY"; then ok "--help"; else fail "--help"; fi
"$AMPOULE" mcp --key "$WORK/agent.key" --kernel "$WORK/none" </dev/null >/dev/null 2>"$WORK/nokernel.err"
rc=$?
if [[ $rc == 2 ]] && grep -q -- "--kernel" "$WORK/nokernel.err"; then ok "a missing kernel: exit 2"; else fail "a missing kernel: exit $rc"; fi

# The protocol, driven over pipes.
python3 - "$AMPOULE" "$WORK/agent.key" "$KERNEL" >"$WORK/driver.out" 2>&1 <<'PY'
import json, subprocess, sys

ampoule, key, kernel = sys.argv[1:4]
proc = subprocess.Popen([ampoule, "mcp", "--key", key, "--kernel", kernel],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
results = []

def check(name, cond):
    print(("ok: " if cond else "FAIL: ") + name)
    results.append(cond)

def send(msg):
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()

def receive():
    line = proc.stdout.readline()
    if not line.endswith(b"\n"):
        raise SystemExit("FAIL: the server closed stdout early")
    return json.loads(line)

def request(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    send(msg)
    r = receive()
    check(f"{method}: the response carries id {id_}", r.get("id") == id_)
    return r

r = request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "stdio_cli", "version": "1"}})
res = r.get("result", {})
check("initialize: revision 2025-11-25", res.get("protocolVersion") == "2025-11-25")
check("initialize: serverInfo.name ampoule", res.get("serverInfo", {}).get("name") == "ampoule")
check("initialize: the tools capability", res.get("capabilities", {}).get("tools") == {"listChanged": False})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})

r = request(2, "tools/list")
tools = {t["name"]: t for t in r.get("result", {}).get("tools", [])}
check("tools/list: the five tools", sorted(tools) == sorted(
    ["run_python", "run_javascript", "run_wasm", "verify_receipt", "gate_submit"]))
check("tools/list: object schemas", all(t["inputSchema"].get("type") == "object" and
                                        t["outputSchema"].get("type") == "object" for t in tools.values()))

code = "import json\nprint(json.dumps({'n': len(open('/input/a.txt').read())}))\n"
r = request(3, "tools/call", {"name": "run_python",
                              "arguments": {"code": code, "inputs": {"a.txt": "hello"}}})
res = r.get("result", {})
sc = res.get("structuredContent", {})
check("run_python: not an error", res.get("isError") is False)
check("run_python: stdout", sc.get("stdout") == '{"n": 5}\n')
check("run_python: status 0 and a receipt", sc.get("status") == 0 and "payload" in sc.get("receipt", {}))
check("run_python: the text content is the structured result",
      json.loads(res.get("content", [{}])[0].get("text", "null")) == sc)

args = {"receipt": sc.get("receipt"), "code": code, "inputs": {"a.txt": "hello"}, "output": sc.get("stdout")}
r = request(4, "tools/call", {"name": "verify_receipt", "arguments": args})
check("verify_receipt: VERIFIED", r.get("result", {}).get("structuredContent", {}).get("result_line") == "VERIFIED")
r = request(5, "tools/call", {"name": "verify_receipt", "arguments": dict(args, replay=True)})
check("verify_receipt replay: REPLAY OK",
      r.get("result", {}).get("structuredContent", {}).get("result_line") == "REPLAY OK")
r = request(6, "tools/call", {"name": "verify_receipt", "arguments": dict(args, output='{"n": 6}\n')})
check("verify_receipt, another output: FAILED",
      r.get("result", {}).get("structuredContent", {}).get("result_line") == "FAILED")

# Several calls in flight at once: each answered once, with its own output.
for i in range(3):
    send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
          "params": {"name": "run_python", "arguments": {"code": f"print({i} * 7)"}}})
answers = {}
for _ in range(3):
    m = receive()
    answers[m.get("id")] = m
check("three calls in flight: three answers, one per id", sorted(answers) == [10, 11, 12])
check("three calls in flight: each its own output", all(
    answers.get(10 + i, {}).get("result", {}).get("structuredContent", {}).get("stdout") == f"{i * 7}\n"
    for i in range(3)))

r = request(7, "no/such/method")
check("an unknown method: -32601", r.get("error", {}).get("code") == -32601)

proc.stdin.close()
rest = proc.stdout.read()
rc = proc.wait(timeout=120)
check("the end of stdin: exit 0", rc == 0)
check("nothing more on stdout", rest == b"")
check("logs go to stderr", b"ampoule mcp" in proc.stderr.read())
sys.exit(0 if all(results) else 1)
PY
rc=$?
cat "$WORK/driver.out"
passed=$((passed + $(grep -c '^ok: ' "$WORK/driver.out")))
failed=$((failed + $(grep -c '^FAIL: ' "$WORK/driver.out")))
[[ $rc == 0 ]] || { ((failed > 0)) || failed=$((failed + 1)); }

echo "stdio_cli: $passed passed, $failed failed"
((failed == 0)) || exit 1
exit 0
