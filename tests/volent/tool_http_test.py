#!/usr/bin/env python3
"""A sealed tool's HTTP requests through a running node (docs/tools.md, "Requests").

  tests/volent/tool_http_test.py --volent BIN --ampoule BIN --verify BIN --modules DIR

DIR holds fetch.wasm (tests/volent/tools/fetch.c, built by
tests/volent/tool.cmake): its arguments are one request for its capability
import, its result the answer. The script runs a local HTTP server, grants
the tool the capability `tools.rates` (that server, paths under /rates/
only), and checks that:
  - a granted request is sent once, through the egress gate, with the
    node's Idempotency-Key (the step's key and the request's number), and
    the tool is given the response; a body that is not UTF-8 comes as
    body_base64;
  - a request outside the grant, and any request of a tool with no
    capability, is denied by the gate, never reaches the server, and is
    journaled under the step's key (GET /v1/egress/denials);
  - a request the node must not send (an Idempotency-Key of the tool's own)
    is answered "invalid";
  - the call's receipt names the recorded exchanges as the input
    http-exchanges.jsonl; `ampoule-verify --replay` with the module, the
    recorded stdin and that input is REPLAY OK off the node, without the
    server; with an answer altered in the input it is refused; the result
    altered is FAILED;
  - Python and JavaScript tools (tools/fetch_many.py, tools/fetch.js) make
    their requests through volent_tool and the volent global; the 17th
    request of a call is answered "limit" and never sent.

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries, a kernel or the module.
"""
import argparse, base64, http.server, json, os, subprocess, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="sealed tools' HTTP requests through `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--verify", required=True, metavar="BIN")
parser.add_argument("--modules", required=True, metavar="DIR")
opts = parser.parse_args()
skip_unless_runs(opts.volent, "node", "mock-model", "tool")
KERNEL = kernel_or_skip(opts.ampoule)
FETCH = os.path.join(opts.modules, "fetch.wasm")
if not os.path.isfile(FETCH):
    skip(f"no fetch.wasm in {opts.modules} (built by tests/volent/tool.cmake; needs clang-14 and wasi-libc)")
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {"fetch": (FETCH, "wasm"), "fetch_many": (os.path.join(HERE, "tools", "fetch_many.py"), "python"),
           "fetch_js": (os.path.join(HERE, "tools", "fetch.js"), "js")}

WORK = work_folder("volent-tool-http-")
check = Checks(numbered=True)
STARTED = 0


# --- the server the tools ask ------------------------------------------------------------------------
SEEN = []  # (method, path, headers, body) of every request that reached the server


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        SEEN.append((self.command, self.path, dict(self.headers.items()), body))
        if self.path == "/rates/binary":
            data, ctype = b"\xff\xfe\x00rates", "application/octet-stream"
        else:
            data, ctype = json.dumps({"path": self.path, "eur": 0.92}).encode(), "application/json"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


SERVER = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=SERVER.serve_forever, daemon=True).start()
TARGET = f"http://127.0.0.1:{SERVER.server_address[1]}"


def start(args, name, listening):
    global STARTED
    STARTED += 1
    return start_server([opts.volent] + args, os.path.join(WORK, f"{name}.{STARTED}.stderr"), listening)




def run_cmd(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


# --- the model's script, the node, the tools ----------------------------------------------------------
CALLS = [("fetch", {"url": f"{TARGET}/rates/eur"}),                                  # 1 granted
         ("fetch", {"url": f"{TARGET}/secret"}),                                     # 2 outside the grant
         ("fetch_bare", {"url": f"{TARGET}/rates/eur"}),                             # 3 no capability
         ("fetch", {"url": f"{TARGET}/rates/eur", "headers": {"Idempotency-Key": "mine"}}),  # 4 invalid
         ("fetch", {"url": f"{TARGET}/rates/binary"}),                               # 5 not UTF-8
         ("fetch_many", {"urls": [f"{TARGET}/rates/{i}" for i in range(17)]}),       # 6 past the limit
         ("fetch_js", {"url": f"{TARGET}/rates/js"})]                                # 7 JavaScript
script = os.path.join(WORK, "script.json")
with open(script, "w") as f:
    json.dump([{"tool_calls": [{"name": name, "arguments": args}]} for name, args in CALLS] + [{"text": "done"}], f)
MOCK_PORT = start(["mock-model", "--listen", "127.0.0.1:0", "--script", script], "mock-model",
                  VOLENT_MOCK_MODEL).port

run_cmd(opts.ampoule, "keygen", "-o", os.path.join(WORK, "author.key"))
with open(os.path.join(WORK, "author.key.pub")) as f:
    author_public = f.read().split()[-1]
config = write_mock_config(WORK, MOCK_PORT, tool_keys=[("author", author_public)], allow=f"""    - capability: tools.rates
      scheme: http
      cidr: 127.0.0.1/32
      port: {SERVER.server_address[1]}
      path_prefix: /rates/
""")
digests = {}
for name, (source, kind) in SOURCES.items():
    sig = os.path.join(WORK, name + ".sig")
    signed = run_cmd(opts.volent, "tool", "sign", source, "--key", os.path.join(WORK, "author.key"), "-o", sig)
    added = run_cmd(opts.volent, "tool", "add", source, "--sig", sig, "--config", config)
    check(f"{name}: signed and added", signed.returncode == 0 and added.returncode == 0,
          signed.stderr + added.stdout + added.stderr)
    digests[name] = added.stdout.split()[1] if added.returncode == 0 else "sha256:" + "0" * 64

node = start(["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", os.path.join(WORK, "data")],
             "node", VOLENT_NODE)
PORT = node.port


def tool_yaml(name, component, kind, capability):
    grant = f"      capability: {capability}\n" if capability else ""
    return f"""    - name: {name}
      kind: {kind}
      component: {component}
{grant}      limits: {{memory_mb: 256, fuel: 20000000000, time_ms: 60000}}
"""


MANIFEST = f"""apiVersion: volent/v1
kind: Agent
metadata:
  name: clerk
spec:
  model:
    provider: openai-compatible
    name: mock
    endpoint: http://127.0.0.1:{MOCK_PORT}/v1
    capability: model.mock
  tools:
{tool_yaml("fetch", digests["fetch"], "wasm", "tools.rates")}{tool_yaml("fetch_bare", digests["fetch"], "wasm", "")}\
{tool_yaml("fetch_many", digests["fetch_many"], "python", "tools.rates")}\
{tool_yaml("fetch_js", digests["fetch_js"], "js", "tools.rates")}"""

s, body = request(PORT, "POST", "/v1/agents", MANIFEST.replace("capability: tools.rates", "capability: tools.other", 1),
                  "application/yaml")
check("a sealed tool's capability must be on the allowlist: 422 at it", s == 422 and any(
    e.get("pointer") == "/spec/tools/0/capability" for e in (body or {}).get("errors", [])), f"HTTP {s} {body}")
s, body = request(PORT, "POST", "/v1/agents", MANIFEST, "application/yaml")
check("the agent applies", s == 201, f"HTTP {s} {body}")
s, body = request(PORT, "POST", "/v1/agents/clerk/runs", json.dumps({"id": "r1"}), "application/json")
check("the run starts", s == 201, f"HTTP {s} {body}")
deadline = time.monotonic() + 300
while time.monotonic() < deadline:
    s, run = request(PORT, "GET", "/v1/agents/clerk/runs/r1")
    if s != 200 or run.get("status") in ("finished", "failed"):
        break
    time.sleep(0.2)
check("the run finishes", s == 200 and run.get("status") == "finished", f"HTTP {s} {str(run)[:400]}")

# The tool completions by step, from the journal.
steps, after = {}, 0
while True:
    s, page = request(PORT, "GET", f"/v1/journal?after={after}&limit=1000")
    if s != 200:
        break
    for e in page["entries"]:
        payload = e.get("payload") or {}
        if e.get("kind") == "completion" and str(e.get("key", "")).startswith("clerk/r1/") \
                and payload.get("type") == "tool":
            steps[int(e["key"].rsplit("/", 1)[1])] = payload
    if page.get("next") is None:
        break
    after = page["next"]
order = sorted(steps)
check("every tool call completed", len(order) == len(CALLS), str(order))
calls = [steps[k] for k in order] + [{}] * (len(CALLS) - len(order))
keys = [f"clerk/r1/{k}" for k in order]


def answer_of(call):
    return call.get("result") if call.get("outcome") == "answered" else {}


# --- what was sent, what was given ---------------------------------------------------------------------
first = answer_of(calls[0])
check("a granted request is answered: status, headers, body",
      first.get("status") == 200 and json.loads(first.get("body", "{}")) == {"path": "/rates/eur", "eur": 0.92}
      and ["content-type", "application/json"] in [[n.lower(), v] for n, v in first.get("headers", [])],
      str(calls[0])[:600])
sent = [(m, p, h) for m, p, h, _ in SEEN]
to_eur = [h for m, p, h in sent if p == "/rates/eur"]
check("... sent once, with the node's Idempotency-Key (the step's key, request 1)",
      len(to_eur) == 1 and to_eur[0].get("Idempotency-Key") == keys[0] + "/http/1", str(sent)[:600])
check("a request outside the grant is denied, and never sent",
      answer_of(calls[1]).get("error") == "denied" and not any(p == "/secret" for _, p, _ in sent),
      str(calls[1])[:400])
check("a tool without a capability is denied", answer_of(calls[2]).get("error") == "denied", str(calls[2])[:400])
check("a request with the tool's own Idempotency-Key is invalid, not sent",
      answer_of(calls[3]).get("error") == "invalid" and "Idempotency-Key" in answer_of(calls[3]).get("reason", ""),
      str(calls[3])[:400])
binary = answer_of(calls[4])
check("a body that is not UTF-8 comes as body_base64",
      base64.b64decode(binary.get("body_base64", "")) == b"\xff\xfe\x00rates" and "body" not in binary,
      str(calls[4])[:400])

s, page = request(PORT, "GET", "/v1/egress/denials")
denied = {d.get("key") for d in (page or {}).get("denials", []) if d.get("agent") == "clerk"} if s == 200 else set()
check("both denials are journaled under their steps' keys", set(keys[1:3]) <= denied and keys[0] not in denied,
      f"HTTP {s} {denied} {keys[:3]}")

many = answer_of(calls[5])
check("a Python tool's 16 requests are answered through volent_tool, the 17th is 'limit' and never sent",
      many.get("statuses") == [200] * 16 + ["limit"]
      and sum(1 for _, p, _ in sent if p.startswith("/rates/") and p[7:].isdigit()) == 16, str(calls[5])[:600])
js = answer_of(calls[6])
check("a JavaScript tool's request goes through the volent global", js.get("status") == 200
      and json.loads(js.get("body", "{}")).get("path") == "/rates/js", str(calls[6])[:400])

# --- the receipt, off the node -----------------------------------------------------------------------
node_pub = os.path.join(WORK, "data", "node.key.pub")


def write(name, text):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


receipt = write("fetch.receipt.json", json.dumps(calls[0].get("receipt", {})))
statement = json.loads(base64.b64decode(calls[0].get("receipt", {}).get("payload", "") or b"e30="))
inputs = {i.get("name"): i for i in statement.get("predicate", {}).get("inputs", [])}
exchanges_text = calls[0].get("http_exchanges", "")
exchanges = write("http-exchanges.jsonl", exchanges_text)
check("the receipt names the recorded exchanges as the input http-exchanges.jsonl",
      list(inputs) == ["http-exchanges.jsonl"]
      and inputs["http-exchanges.jsonl"].get("bytes") == len(exchanges_text.encode()), str(inputs)[:400])
stdin = write("fetch.stdin", calls[0].get("stdin", ""))
SERVER.shutdown()
before = len(SEEN)
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", node_pub, "--program", FETCH,
            "--stdin", stdin, "--input", "http-exchanges.jsonl=" + exchanges)
check("the call replays off the node from the recorded answers, the server gone", r.returncode == 0
      and "REPLAY OK" in r.stdout and len(SEEN) == before, r.stdout + r.stderr)
altered = write("altered/http-exchanges.jsonl", exchanges_text.replace("0.92", "0.99"))
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", node_pub, "--program", FETCH,
            "--stdin", stdin, "--input", "http-exchanges.jsonl=" + altered)
check("an answer altered in the recorded input is refused", r.returncode == 1 and "FAILED" in r.stdout,
      r.stdout + r.stderr)
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", node_pub, "--program", FETCH,
            "--stdin", stdin)
check("without the recorded input there is no replay", r.returncode != 0 and "REPLAY OK" not in r.stdout,
      r.stdout + r.stderr)
result = write("result.json", json.dumps(dict(first, status=201)) + "\n")
r = run_cmd(opts.verify, receipt, "--key", node_pub, "--output", result)
check("the result altered is FAILED against the receipt", r.returncode == 1 and "FAILED" in r.stdout,
      r.stdout + r.stderr)
many_receipt = write("many.receipt.json", json.dumps(calls[5].get("receipt", {})))
r = run_cmd(opts.verify, "--replay", many_receipt, "--kernel", KERNEL, "--key", node_pub, "--program",
            SOURCES["fetch_many"][0], "--stdin", write("many.stdin", calls[5].get("stdin", "")),
            "--input", "http-exchanges.jsonl=" + write("many/http-exchanges.jsonl", calls[5].get("http_exchanges", "")))
check("the Python tool's call of 16 requests replays too", r.returncode == 0 and "REPLAY OK" in r.stdout,
      r.stdout + r.stderr)
node.stop()
check.finish("sealed tools' requests: ")
