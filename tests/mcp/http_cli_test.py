#!/usr/bin/env python3
"""`ampoule mcp --http` from the outside: the Streamable HTTP rules of
docs/mcp.md (MCP 2025-11-25, basic/transports), over real sockets, with a
real kernel and key.

  tests/mcp/http_cli_test.py --ampoule BIN [--kernel K]

Starts `ampoule mcp --key K --http 127.0.0.1:0 --allow-origin
https://app.example.com`, reads the port from its "listening on" line and
drives it with python3's http.client (tests/harness/): sessions (initialize, the
Mcp-Session-Id header, 400 without it, 404 once deleted), 202 for
notifications, application/json for quick methods and one server-sent
event for tools/call (a real run_python), 406/415/400/413 for bad
requests, MCP-Protocol-Version, Origin and Host checks, GET/PUT 405,
other paths 404, calls side by side, malformed HTTP, a client that
half-closes; after each bad request the server must still answer. Then
SIGTERM must end it with status 0.

Prints `ok`/`FAIL` per case and a summary; exit 1 on any failure;
`skipped: REASON` (exit 0) without the mcp command or a kernel. The
SIGTERM and stderr checks come after the summary line, outside its count.
"""
import argparse, http.client, json, os, re, socket, subprocess, sys, threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks, fail  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import json_body as jbody, raw_exchange, request as http_request  # noqa: E402
from harness.servers import AMPOULE_MCP, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="`ampoule mcp --http` over real sockets.")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--kernel", metavar="K", help="default: $AMPOULE_KERNEL, else `ampoule kernel path`")
args = parser.parse_args()
AMPOULE = args.ampoule
skip_unless_runs(AMPOULE, "mcp")
KERNEL = kernel_or_skip(AMPOULE, args.kernel)

WORK = work_folder("ampoule-mcp-http-")
KEY = os.path.join(WORK, "key")
if subprocess.run([AMPOULE, "keygen", "-o", KEY], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
    fail("ampoule keygen")
SERVER = start_server([AMPOULE, "mcp", "--key", KEY, "--kernel", KERNEL, "--http", "127.0.0.1:0",
                       "--allow-origin", "https://app.example.com"], os.path.join(WORK, "stderr"), AMPOULE_MCP,
                      stdout_too=False)
HOST, PORT = SERVER.host, SERVER.port
ACCEPT = "application/json, text/event-stream"
check = Checks(numbered=False)


def request(method, body=None, headers=None, path="/mcp", conn=None):
    """POSTs carry the Accept and Content-Type of an MCP client unless
    `headers` sets them, or drops them with None."""
    h = {"Accept": ACCEPT, "Content-Type": "application/json"} if method == "POST" else {}
    h.update(headers or {})
    h = {k: v for k, v in h.items() if v is not None}
    # Encoded here, so no header is added that the case did not ask for.
    data = body if isinstance(body, (bytes, type(None))) else (body if isinstance(body, str) else json.dumps(body)).encode()
    return http_request(HOST, PORT, method, path, data, h, conn, timeout=120)


def sse_messages(payload):
    out = []
    for block in payload.decode().split("\n\n"):
        data = [l[5:].lstrip() for l in block.split("\n") if l.startswith("data:")]
        if data and "".join(data):
            out.append(json.loads("\n".join(data)))
    return out


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "http_cli", "version": "1"}}}

def alive(name):
    s, h, p = request("POST", INIT)
    check(f"still serving after {name}", s == 200 and "mcp-session-id" in h, f"HTTP {s}")

# --- sessions -----------------------------------------------------------
s, h, p = request("POST", INIT)
sid = h.get("mcp-session-id", "")
check("initialize: 200 application/json with the result", s == 200 and h.get("content-type") == "application/json"
      and (jbody(p) or {}).get("result", {}).get("protocolVersion") == "2025-11-25", f"HTTP {s} {p[:200]!r}")
check("initialize: Mcp-Session-Id is 32 hex digits", len(sid) == 32 and all(c in "0123456789abcdef" for c in sid), sid)
V = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}

s, h, p = request("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, V)
check("notification: 202 with no body", s == 202 and p == b"", f"HTTP {s} {p[:100]!r}")

s, h, p = request("POST", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, V)
tools = [t["name"] for t in ((jbody(p) or {}).get("result") or {}).get("tools", [])]
check("tools/list: 200 application/json listing run_python", s == 200 and h.get("content-type") == "application/json"
      and "run_python" in tools, f"HTTP {s} {tools}")

s, h, p = request("POST", {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                           "params": {"name": "run_python", "arguments": {"code": "print(6*7)"}}}, V)
msgs = sse_messages(p) if h.get("content-type") == "text/event-stream" else []
ok = (s == 200 and len(msgs) == 1 and msgs[0].get("id") == 3 and
      "42" in json.dumps(msgs[0].get("result", {}).get("structuredContent", {}).get("stdout", "")))
check("tools/call run_python: one server-sent event with the result (stdout 42)", ok, f"HTTP {s} {p[:300]!r}")
check("tools/call: the event carries a receipt",
      bool(msgs and msgs[0].get("result", {}).get("structuredContent", {}).get("receipt")))

s, h, p = request("POST", {"jsonrpc": "2.0", "id": 4, "method": "ping"}, {"MCP-Protocol-Version": "2025-11-25"})
check("request without Mcp-Session-Id: 400", s == 400 and (jbody(p) or {}).get("error"), f"HTTP {s}")
s, h, p = request("POST", {"jsonrpc": "2.0", "id": 4, "method": "ping"}, {"Mcp-Session-Id": "f" * 32})
check("request with an unknown session: 404", s == 404, f"HTTP {s}")

# --- the request itself ---------------------------------------------------
for accept in ["application/json", "text/event-stream", None]:
    s, h, p = request("POST", {"jsonrpc": "2.0", "id": 5, "method": "ping"}, dict(V, Accept=accept))
    check(f"Accept {accept}: 406", s == 406, f"HTTP {s}")
s, h, p = request("POST", {"jsonrpc": "2.0", "id": 5, "method": "ping"}, dict(V, **{"Content-Type": "text/plain"}))
check("Content-Type text/plain: 415", s == 415, f"HTTP {s}")
s, h, p = request("POST", b'{"jsonrpc": "2.0", "id": 6, "method":', V)
check("malformed JSON: 400 with a -32700 error (id null)", s == 400 and (jbody(p) or {}).get("error", {}).get("code") == -32700
      and (jbody(p) or {}).get("id", 0) is None, f"HTTP {s} {p[:200]!r}")
s, h, p = request("POST", [{"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"jsonrpc": "2.0", "id": 8, "method": "ping"}], V)
check("batch: 400 with a JSON-RPC error", s == 400 and isinstance((jbody(p) or {}).get("error", {}).get("code"), int), f"HTTP {s}")
s, h, p = request("POST", b"[" * 100000, V)
check("deep nesting: 400", s == 400, f"HTTP {s}")
for bad in ["invalid-protocol-version", "2000-01-01", "2099-01-01"]:
    s, h, p = request("POST", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, dict(V, **{"MCP-Protocol-Version": bad}))
    check(f"MCP-Protocol-Version {bad}: 400", s == 400, f"HTTP {s}")
s, h, p = request("POST", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, {"Mcp-Session-Id": sid})
check("no MCP-Protocol-Version (taken as 2025-03-26): served", s == 200, f"HTTP {s}")
alive("bad requests")

# --- origins and hosts ------------------------------------------------------
s, h, p = request("POST", INIT, {"Origin": "https://evil.example"})
check("foreign Origin: 403", s == 403 and "mcp-session-id" not in h, f"HTTP {s}")
s, h, p = request("POST", INIT, {"Origin": f"http://localhost:{PORT}"})
check("loopback Origin on the port: served", s == 200, f"HTTP {s}")
s, h, p = request("POST", INIT, {"Origin": "https://app.example.com"})
check("--allow-origin origin: served, with Access-Control-Allow-Origin", s == 200
      and h.get("access-control-allow-origin") == "https://app.example.com", f"HTTP {s} {h}")
s, h, p = request("POST", INIT, {"Host": "evil.example.com"})
check("foreign Host (DNS rebinding): 403", s == 403, f"HTTP {s}")
s, h, p = request("POST", INIT, {"Host": f"localhost:{PORT}"})
check("Host localhost:PORT: served", s == 200, f"HTTP {s}")

# --- methods and paths --------------------------------------------------------
s, h, p = request("GET", None, {"Accept": "text/event-stream", "Mcp-Session-Id": sid})
check("GET /mcp: 405 with Allow", s == 405 and "POST" in h.get("allow", ""), f"HTTP {s}")
s, h, p = request("PUT", b"{}", {"Mcp-Session-Id": sid})
check("PUT /mcp: 405", s == 405, f"HTTP {s}")
s, h, p = request("POST", INIT, path="/other")
check("other path: 404", s == 404, f"HTTP {s}")

# --- calls side by side, one session ---------------------------------------------
results = {}
def call(i):
    try:
        s, h, p = request("POST", {"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                                   "params": {"name": "run_python", "arguments": {"code": f"print({i}*1000)"}}}, V)
        m = sse_messages(p)
        results[i] = s == 200 and len(m) == 1 and m[0].get("id") == 100 + i and str(i * 1000) in json.dumps(m[0])
    except Exception:  # no answer, or one that is not JSON: this call failed
        results[i] = False
threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
check("four tool calls at once in one session: each gets its own answer", all(results.get(i) for i in range(4)), str(results))

# --- keep-alive ----------------------------------------------------------------------
conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
codes = [request("POST", {"jsonrpc": "2.0", "id": 200 + i, "method": "ping"}, V, conn=conn)[0] for i in range(3)]
conn.close()
check("three requests on one kept-alive connection", codes == [200, 200, 200], str(codes))

# --- bad clients ------------------------------------------------------------------------
def raw(data, shut=True):
    return raw_exchange(HOST, PORT, data, shut, timeout=30)


out = raw(b"\x00\x01garbage\r\n\r\n")
check("garbage bytes: 400", out.startswith(b"HTTP/1.1 400"), repr(out[:80]))
alive("garbage bytes")
body = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"a" * (65 << 20) + b'"}}'
sock = socket.create_connection((HOST, PORT), timeout=60)
head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nAccept: {ACCEPT}\r\nContent-Type: application/json\r\n"
        f"Mcp-Session-Id: {sid}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
sock.sendall(head)
reply = sock.recv(4096)
sock.close()
check("a 65 MiB body: 413 before it is sent", reply.startswith(b"HTTP/1.1 413"), repr(reply[:80]))
alive("an oversized body")
req = json.dumps({"jsonrpc": "2.0", "id": 300, "method": "ping"}).encode()
out = raw(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nAccept: {ACCEPT}\r\nContent-Type: application/json\r\n"
          f"Mcp-Session-Id: {sid}\r\nContent-Length: {len(req)}\r\n\r\n".encode() + req)
check("a client that half-closes after its request still gets the answer", out.startswith(b"HTTP/1.1 200") and b'"id":300' in out, repr(out[:120]))
out = raw(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{", shut=True)
check("a request cut short: no answer, no harm", not out.startswith(b"HTTP/1.1 2"), repr(out[:80]))
alive("truncated requests")

# --- the end of a session --------------------------------------------------------------
s, h, p = request("DELETE", None, V)
check("DELETE: 204", s == 204, f"HTTP {s}")
s, h, p = request("POST", {"jsonrpc": "2.0", "id": 10, "method": "tools/list"}, V)
check("after DELETE: 404", s == 404, f"HTTP {s}")
s, h, p = request("DELETE", None, V)
check("DELETE again: 404", s == 404, f"HTTP {s}")

print(f"http_cli: {check.passed} passed, {check.failed} failed", flush=True)
failed = check.failed > 0

# --- SIGTERM, after the summary as ever ---------------------------------------------------
status = SERVER.stop(timeout=60)
if status == 0:
    print("ok: SIGTERM ends the server with status 0")
else:
    print(f"FAIL: SIGTERM: exit status {status}")
    failed = True
stderr = SERVER.stderr()
if re.search(r"exception|what\(\)|terminate called|sanitizer", stderr, re.I):
    print("FAIL: the server's stderr shows an internal failure")
    print("".join("  stderr: " + l for l in stderr.splitlines(True)[:20]), end="")
    failed = True
sys.exit(1 if failed else 0)
