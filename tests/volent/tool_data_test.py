#!/usr/bin/env python3
"""What a sealed tool's data reaches, and what the journal keeps of its requests
(docs/tools.md, "What the model is shown"; docs/journal.md, "A sealed tool's requests").

  tests/volent/tool_data_test.py --volent BIN --ampoule BIN

Runs a local HTTP server, a recording mock model (`volent mock-model
--record`) and a node whose agent has two Python tools:
  - check (tools/eligibility.py) fetches a customer record (a card number,
    an SSN) with an Authorization token of its own; the server answers with
    a Set-Cookie; the tool answers only {"eligible": true}. None of the
    record, the token, the cookie, the receipt or the call's stdin may reach
    the model: it is sent the result, and only the result.
  - move (tools/exfiltrate.py) GETs internal data, POSTs it elsewhere, then
    makes a request that is never answered within its time: the call ends
    out of time. The journal must hold every request before it was sent and
    each answer when it came (tool-http-request, tool-http-answer, under
    AGENT/RUN/STEP/http/N), the run's view must list them, and the failed
    completion must still carry the stdin and the exchanges so far.
A second run is killed (SIGKILL) while its last request hangs, and the node
restarted: the re-issued call is given the answers the journal holds, so the
GET and the POST reach the server once in all, the hanging request is sent
again under its same key, and no entry is written twice.

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries or a kernel.
"""
import argparse, http.server, json, os, signal, subprocess, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.http_client import request as raw_request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="a sealed tool's data and requests through `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
opts = parser.parse_args()
skip_unless_runs(opts.volent, "node", "mock-model", "tool")
kernel_or_skip(opts.ampoule)
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = {"check": os.path.join(HERE, "tools", "eligibility.py"), "move": os.path.join(HERE, "tools", "exfiltrate.py")}

WORK = work_folder("volent-tool-data-")
check = Checks(numbered=True)
STARTED = 0

# What must never reach the model: the record's card number and SSN, the
# tool's own token (tools/eligibility.py), the server's cookie.
CARD, SSN = "4111111111111111", "078-05-1120"
TOKEN, COOKIE = "tok-7d1c0ffee-internal", "sess-c00k1e-9f3a"
INTERNAL = "payroll-2026-q4-internal"  # what the exfiltrating tool reads and posts


# --- the server the tools ask ------------------------------------------------------------------------
SEEN = []  # (method, path, Idempotency-Key, body) of every request that reached the server
SEEN_LOCK = threading.Lock()
STALL_ARRIVED = threading.Condition()
RELEASE = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with SEEN_LOCK:
            SEEN.append((self.command, self.path, self.headers.get("Idempotency-Key", ""), body))
        headers = []
        if self.path == "/customers/42":
            data = {"name": "Ada", "card": CARD, "ssn": SSN, "balance": 12}
            headers.append(("Set-Cookie", f"session={COOKIE}; HttpOnly"))
        elif self.path == "/internal/payroll":
            data = {"report": INTERNAL}
        elif self.path == "/stall":
            with STALL_ARRIVED:
                STALL_ARRIVED.notify_all()
            RELEASE.wait(300)  # longer than the tool's time
            data = {"late": True}
        else:
            data = {"ok": True}
        out = json.dumps(data).encode()
        try:
            self.send_response(200)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except OSError:
            pass

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


SERVER = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
SERVER.daemon_threads = True
threading.Thread(target=SERVER.serve_forever, daemon=True).start()
TARGET = f"http://127.0.0.1:{SERVER.server_address[1]}"


def start(args, name, listening):
    global STARTED
    STARTED += 1
    return start_server([opts.volent] + args, os.path.join(WORK, f"{name}.{STARTED}.stderr"), listening)


def run_cmd(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


def seen(run, method=None, path=None):
    with SEEN_LOCK:
        return [s for s in SEEN if s[2].startswith(f"clerk/{run}/") and (method is None or s[0] == method)
                and (path is None or s[1] == path)]


# --- the recording model, the node, the tools --------------------------------------------------------
MOVE_ARGS = {"read": f"{TARGET}/internal/payroll", "send": f"{TARGET}/collect", "stall": f"{TARGET}/stall"}
script = os.path.join(WORK, "script.json")
with open(script, "w") as f:
    json.dump([{"tool_calls": [{"name": "check", "arguments": {"url": f"{TARGET}/customers/42"}}]},
               {"tool_calls": [{"name": "move", "arguments": MOVE_ARGS}]}, {"text": "done"}], f)
MOCK_PORT = start(["mock-model", "--listen", "127.0.0.1:0", "--script", script, "--record", "100"], "mock-model",
                  VOLENT_MOCK_MODEL).port

run_cmd(opts.ampoule, "keygen", "-o", os.path.join(WORK, "author.key"))
with open(os.path.join(WORK, "author.key.pub")) as f:
    author_public = f.read().split()[-1]
config = write_mock_config(WORK, MOCK_PORT, tool_keys=[("author", author_public)], allow=f"""    - capability: tools.data
      scheme: http
      cidr: 127.0.0.1/32
      port: {SERVER.server_address[1]}
""")
digests = {}
for name, source in TOOLS.items():
    sig = os.path.join(WORK, name + ".sig")
    signed = run_cmd(opts.volent, "tool", "sign", source, "--key", os.path.join(WORK, "author.key"), "-o", sig)
    added = run_cmd(opts.volent, "tool", "add", source, "--sig", sig, "--config", config)
    check(f"{name}: signed and added", signed.returncode == 0 and added.returncode == 0,
          signed.stderr + added.stdout + added.stderr)
    digests[name] = added.stdout.split()[1] if added.returncode == 0 else "sha256:" + "0" * 64

NODE_ARGS = ["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", os.path.join(WORK, "data")]
node = start(NODE_ARGS, "node", VOLENT_NODE)
PORT = node.port

# move's time covers the three runs before its last request and then that
# request's wait: the request cap (10 s) is never shorter, so the call ends
# out of time, whatever the machine's speed.
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
    - name: check
      kind: python
      component: {digests["check"]}
      capability: tools.data
      limits: {{memory_mb: 256, fuel: 20000000000, time_ms: 60000}}
    - name: move
      kind: python
      component: {digests["move"]}
      capability: tools.data
      limits: {{memory_mb: 256, fuel: 20000000000, time_ms: 10000}}
"""
s, body = request(PORT, "POST", "/v1/agents", MANIFEST, "application/yaml")
check("the agent applies", s == 201, f"HTTP {s} {body}")


def wait_run(port, run, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s, view = request(port, "GET", f"/v1/agents/clerk/runs/{run}")
        if s != 200 or view.get("status") in ("finished", "failed"):
            return s, view
        time.sleep(0.2)
    return s, view


def journal_entries(port):
    entries, after = [], 0
    while True:
        s, page = request(port, "GET", f"/v1/journal?after={after}&limit=1000")
        if s != 200:
            return entries
        entries += page["entries"]
        if page.get("next") is None:
            return entries
        after = page["next"]


def tool_completions(entries, run):
    steps = {}
    for e in entries:
        payload = e.get("payload") or {}
        if e.get("kind") == "completion" and str(e.get("key", "")).startswith(f"clerk/{run}/") \
                and payload.get("type") == "tool":
            steps[payload.get("tool")] = (int(e["key"].rsplit("/", 1)[1]), payload)
    return steps


def request_entries(entries, run, kind):
    return [e for e in entries if e.get("kind") == kind and str(e.get("key", "")).startswith(f"clerk/{run}/")]


s, body = request(PORT, "POST", "/v1/agents/clerk/runs", json.dumps({"id": "r1"}), "application/json")
check("run r1 starts", s == 201, f"HTTP {s} {body}")
s, run = wait_run(PORT, "r1")
check("run r1 finishes, the out-of-time call reported to the model", s == 200 and run.get("status") == "finished",
      f"HTTP {s} {str(run)[:400]}")
entries = journal_entries(PORT)
calls = tool_completions(entries, "r1")
check_step, check_call = calls.get("check", (0, {}))
move_step, move_call = calls.get("move", (0, {}))
check("check answered {\"eligible\": true}, the record fetched with its token",
      check_call.get("outcome") == "answered" and check_call.get("result") == {"eligible": True}
      and CARD in check_call.get("http_exchanges", "") and TOKEN in check_call.get("http_exchanges", ""),
      str(check_call)[:600])

# --- 1. the model is sent the result, and only the result ---------------------------------------------
s, _, recorded = raw_request("127.0.0.1", MOCK_PORT, "GET", "/requests")
recorded = json.loads(recorded) if s == 200 else {}
bodies = [r.get("body", "") for r in recorded.get("requests", [])]
check("the recording model kept the run's three model requests", len(bodies) == 3 and recorded.get("dropped") == 0,
      f"HTTP {s} {len(bodies)} requests")


def tool_messages(text):
    try:
        return [m for m in json.loads(text).get("messages", []) if m.get("role") == "tool"]
    except ValueError:
        return []


def content(message):
    """A tool message's content as JSON (an error's begins "error: ", docs/models.md)."""
    text = message.get("content", "")
    try:
        return json.loads(text[len("error: "):] if text.startswith("error: ") else text)
    except ValueError:
        return None


sent_results = [tool_messages(b) for b in bodies]
check("the model is sent check's result as the tool message, and nothing else",
      len(bodies) >= 2 and [m.get("content") for m in sent_results[1]] == ['{"eligible":true}'],
      str(sent_results[1:2])[:800])
for what, secret in [("the card number", CARD), ("the SSN", SSN), ("the tool's Authorization token", TOKEN),
                     ("the server's Set-Cookie", COOKIE), ("the data the other tool read", INTERNAL)]:
    check(f"{what} never reaches the model", bodies and not any(secret in b for b in bodies),
          next((b[max(0, b.find(secret) - 200):b.find(secret) + 100] for b in bodies if secret in b), ""))
for what, marker in [("the receipt", "payloadType"), ("the recorded exchanges", "http_exchanges"),
                     ("the call's stdin", "stdin"), ("the run's fuel", "fuel_used")]:
    check(f"{what} never reaches the model", bodies and not any(marker in b for b in bodies),
          next((b[max(0, b.find(marker) - 200):b.find(marker) + 100] for b in bodies if marker in b), ""))
move_sent = sent_results[2][1:] if len(sent_results) > 2 else []  # the conversation so far, then move's
told = (content(move_sent[0]) if len(move_sent) == 1 else None) or {}
check("the model is told move failed, as an error, with its reason only",
      len(move_sent) == 1 and move_sent[0].get("content", "").startswith("error: ") and told.get("outcome") == "failed"
      and "out of time" in told.get("reason", "") and set(told) == {"outcome", "reason"}, str(move_sent)[:600])

# --- 2. every exchange journaled before it is sent ----------------------------------------------------
check("move ran out of time waiting for its third answer",
      move_call.get("outcome") == "failed" and "out of time" in move_call.get("reason", ""), str(move_call)[:400])
key = f"clerk/r1/{move_step}/http/"
asked = {e["key"]: e for e in request_entries(entries, "r1", "tool-http-request") if e["key"].startswith(key)}
answered = {e["key"]: e for e in request_entries(entries, "r1", "tool-http-answer") if e["key"].startswith(key)}
post = asked.get(key + "2", {}).get("payload", {})
check("the POST's request is journaled, with what it carried, under STEP/http/2",
      post.get("request", {}).get("method") == "POST" and post.get("request", {}).get("url") == MOVE_ARGS["send"]
      and INTERNAL in post.get("request", {}).get("body", ""), str(sorted(asked))[:300] + " " + str(post)[:400])
check("... and its answer", answered.get(key + "2", {}).get("payload", {}).get("answer", {}).get("status") == 200,
      str(answered.get(key + "2"))[:400])
posts = seen("r1", "POST")
check("... the POST journaled before it was sent: its entry precedes its answer, sent once under its key",
      asked.get(key + "2", {}).get("seq", 1 << 62) < answered.get(key + "2", {}).get("seq", 0)
      and [p[2] for p in posts] == [key + "2"], str(posts)[:300])
check("the hanging request is journaled as asked, and its failure as its answer",
      asked.get(key + "3", {}).get("payload", {}).get("request", {}).get("url") == MOVE_ARGS["stall"]
      and "error" in answered.get(key + "3", {}).get("payload", {}).get("answer", {}),
      str(asked.get(key + "3"))[:300] + str(answered.get(key + "3"))[:300])
exchanges = [json.loads(line) for line in move_call.get("http_exchanges", "").splitlines() if line.strip()]
check("the failed completion still carries the stdin and the exchanges so far",
      json.loads(move_call.get("stdin", "null") or "null") == MOVE_ARGS and len(exchanges) == 3
      and exchanges[1].get("request", {}).get("method") == "POST", str(move_call)[:600])
s, view = request(PORT, "GET", "/v1/agents/clerk/runs/r1")
listed = {c.get("tool"): c for c in (view or {}).get("tool_calls", [])}
move_listed = listed.get("move", {}).get("http_requests", [])
check("the run's view lists move's requests and answers",
      [(r.get("number"), r.get("method"), r.get("url")) for r in move_listed]
      == [(1, "GET", MOVE_ARGS["read"]), (2, "POST", MOVE_ARGS["send"]), (3, "GET", MOVE_ARGS["stall"])]
      and move_listed[1].get("status") == 200 and move_listed[2].get("error"), str(listed.get("move"))[:800])
check("... and move's stdin and exchanges, out of time as it was",
      listed.get("move", {}).get("stdin") == move_call.get("stdin")
      and listed.get("move", {}).get("http_exchanges") == move_call.get("http_exchanges"), str(listed.get("move"))[:400])

# --- a crash while the last request hangs, and the restart --------------------------------------------
s, body = request(PORT, "POST", "/v1/agents/clerk/runs", json.dumps({"id": "r2"}), "application/json")
check("run r2 starts", s == 201, f"HTTP {s} {body}")
with STALL_ARRIVED:
    arrived = STALL_ARRIVED.wait_for(lambda: seen("r2", path="/stall"), timeout=240)
check("r2's move reaches its hanging request", arrived, str(seen("r2"))[:300])
node.stop(signal.SIGKILL)
node = start(NODE_ARGS, "node", VOLENT_NODE)
PORT = node.port
s, run = wait_run(PORT, "r2")
check("after the restart, r2 finishes", s == 200 and run.get("status") == "finished", f"HTTP {s} {str(run)[:400]}")
entries = journal_entries(PORT)
move_step, move_call = tool_completions(entries, "r2").get("move", (0, {}))
key = f"clerk/r2/{move_step}/http/"
check("the GET and the POST reached the server once in all: the re-issued call was given their journaled answers",
      [p[2] for p in seen("r2", path="/internal/payroll")] == [key + "1"]
      and [p[2] for p in seen("r2", "POST")] == [key + "2"], str(seen("r2"))[:600])
check("the hanging request was sent again, under its same key",
      [p[2] for p in seen("r2", path="/stall")] == [key + "3", key + "3"], str(seen("r2", path="/stall"))[:300])
kinds = [(e["kind"], e["key"]) for e in entries if str(e.get("key", "")).startswith(key)]
check("one request entry and one answer entry per request, none written twice",
      sorted(kinds) == sorted([(k, key + str(n)) for n in (1, 2, 3) for k in ("tool-http-request", "tool-http-answer")]),
      str(kinds))
exchanges = [json.loads(line) for line in move_call.get("http_exchanges", "").splitlines() if line.strip()]
check("the re-issued call's completion carries the three exchanges, the POST's answer as journaled",
      move_call.get("outcome") == "failed" and len(exchanges) == 3
      and exchanges[1].get("answer", {}).get("status") == 200, str(move_call)[:600])
node.stop()
verified = run_cmd(opts.volent, "journal", "verify", "--data-dir", os.path.join(WORK, "data"))
check("the journal verifies", verified.returncode == 0 and "journal OK" in verified.stdout,
      verified.stdout + verified.stderr)
RELEASE.set()
SERVER.shutdown()
check.finish("a sealed tool's data and requests: ")
