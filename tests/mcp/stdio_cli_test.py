#!/usr/bin/env python3
"""`ampoule mcp` over real stdin and stdout (docs/mcp.md), driven by a small
client: initialize, notifications/initialized, tools/list,
tools/call run_python (its receipt then checked by verify_receipt, also
with replay), three calls in flight at once, an unknown method, and the
end of stdin ending the server with exit 0. Every line on stdout must be
one JSON-RPC message. Also the usage errors (no --key: exit 2) and --help.

  tests/mcp/stdio_cli_test.py --ampoule BIN [--kernel K]

Prints `ok`/`FAIL` per check and `stdio_cli: N passed, N failed`; exit 1
on any failure; `skipped: REASON` (exit 0) without a kernel.
"""
import argparse, json, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks, fail  # noqa: E402
from harness.cleanup import die_with_parent, kill_at_exit, work_folder  # noqa: E402

parser = argparse.ArgumentParser(description="`ampoule mcp` over real stdin and stdout.")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--kernel", metavar="K", help="default: $AMPOULE_KERNEL, else `ampoule kernel path`")
args = parser.parse_args()
AMPOULE = args.ampoule
skip_unless_runs(AMPOULE)
KERNEL = kernel_or_skip(AMPOULE, args.kernel)

WORK = work_folder("ampoule-mcp-test-")
KEY = os.path.join(WORK, "agent.key")
check = Checks(numbered=False)
if subprocess.run([AMPOULE, "keygen", "-o", KEY], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
    fail("keygen")


def ampoule(*argv):
    """`ampoule ARGV` with nothing on stdin: (exit status, stdout, stderr)."""
    r = subprocess.run([AMPOULE, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr


# --- usage ---------------------------------------------------------------------------------------
rc, out, err = ampoule("mcp", "--kernel", KERNEL)
check("no --key: exit 2, the message names --key, nothing on stdout", rc == 2 and not out and b"--key" in err,
      f"exit {rc}")
rc, out, err = ampoule("mcp", "--help")
check("--help", b"ampoule mcp --key KEY" in out)
rc, out, err = ampoule("mcp", "--key", KEY, "--kernel", os.path.join(WORK, "none"))
check("a missing kernel: exit 2", rc == 2 and b"--kernel" in err, f"exit {rc}")


# --- the protocol, over pipes ----------------------------------------------------------------------
class ClosedEarly(Exception):
    pass


proc = kill_at_exit(subprocess.Popen([AMPOULE, "mcp", "--key", KEY, "--kernel", KERNEL], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=die_with_parent))


def send(msg):
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def receive():
    line = proc.stdout.readline()
    if not line.endswith(b"\n"):
        raise ClosedEarly()
    return json.loads(line)


def request(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    send(msg)
    r = receive()
    check(f"{method}: the response carries id {id_}", r.get("id") == id_)
    return r


try:
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
except ClosedEarly:
    check("the server closed stdout early", False)
except Exception as e:  # a broken answer ends the protocol run: one failure, named
    check(f"the protocol run: {type(e).__name__}: {e}", False)
check.finish("stdio_cli: ")
