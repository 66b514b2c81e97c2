#!/usr/bin/env python3
"""A credential the egress gate adds for a sealed tool (docs/egress.md, "Credentials").

  tests/volent/tool_credential_test.py --volent BIN --ampoule BIN --verify BIN --modules DIR

DIR holds fetch.wasm (tests/volent/tools/fetch.c): its arguments are one
request for its capability import, its result the answer. The script runs a
local HTTP service that needs a bearer token and echoes what it is sent, and
a second one (another origin) it redirects to; the allowlist entry of the
capability `tools.orders` names the credential `orders`, whose value is in
a file of mode 0600 in the node's data folder. It checks that:
  - the header reaches the service with the value; the tool's answer names
    the credential, and the echo it is given carries "[credential orders]"
    where the value was;
  - a tool that sets Authorization itself is denied (the reason names the
    credential), and nothing is sent;
  - a redirect to another origin reaches it without the header;
  - the value is nowhere in the node's data folder (journal, receipts, the
    tool's stdin, the recorded exchanges, the model's requests, which the
    journal holds as intents), in the run's view, the journal's API, the
    denials, nor the node's output, except the secret file itself;
  - `ampoule-verify --replay` with the recorded exchanges is REPLAY OK with
    the service gone and no credential anywhere;
  - a node whose secret file is mode 0644, or whose value holds CR LF, does
    not start, and says which file; `volent check` refuses a credential on
    an entry of "*".

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

parser = argparse.ArgumentParser(description="a credential the egress gate adds for a sealed tool.")
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

WORK = work_folder("volent-tool-credential-")
check = Checks(numbered=True)
STARTED = 0
SECRET = "orders-7c1f2e9a-token-do-not-leak"


# --- the services ---------------------------------------------------------------------------------------
SEEN = []  # (server, method, path, headers) of every request that arrived


def handler_for(name):
    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            headers = dict(self.headers.items())
            SEEN.append((name, self.command, self.path, headers))
            if name == "orders" and self.path == "/orders/redirect":
                self.send_response(302)
                self.send_header("Location", f"{OTHER}/landed")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            auth = headers.get("Authorization", "")
            # The service echoes what it was sent: the worst case the gate
            # redacts (docs/egress.md, "Credentials").
            data = json.dumps({"server": name, "path": self.path, "you_sent": auth,
                               "ok": auth == "Bearer " + SECRET}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Echo", auth or "-")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = answer

        def log_message(self, *args):
            pass
    return Handler


ORDERS_SERVER = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for("orders"))
OTHER_SERVER = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for("other"))
for s in (ORDERS_SERVER, OTHER_SERVER):
    threading.Thread(target=s.serve_forever, daemon=True).start()
ORDERS = f"http://127.0.0.1:{ORDERS_SERVER.server_address[1]}"
OTHER = f"http://127.0.0.1:{OTHER_SERVER.server_address[1]}"


def start(args, name, listening):
    global STARTED
    STARTED += 1
    return start_server([opts.volent] + args, os.path.join(WORK, f"{name}.{STARTED}.stderr"), listening)


def run_cmd(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


def write(name, text, mode=0o644):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


# --- the node's configuration -----------------------------------------------------------------------
CALLS = [("fetch", {"url": f"{ORDERS}/orders/echo"}),                                       # 1 authenticated
         ("fetch", {"url": f"{ORDERS}/orders/echo", "headers": {"Authorization": "Bearer mine"}}),  # 2 sets it
         ("fetch", {"url": f"{ORDERS}/orders/redirect"})]                                   # 3 to another origin
script = os.path.join(WORK, "script.json")
with open(script, "w") as f:
    json.dump([{"tool_calls": [{"name": name, "arguments": args}]} for name, args in CALLS] + [{"text": "done"}], f)
MOCK_PORT = start(["mock-model", "--listen", "127.0.0.1:0", "--script", script], "mock-model",
                  VOLENT_MOCK_MODEL).port

run_cmd(opts.ampoule, "keygen", "-o", os.path.join(WORK, "author.key"))
with open(os.path.join(WORK, "author.key.pub")) as f:
    author_public = f.read().split()[-1]
ALLOW = f"""    - capability: tools.orders
      scheme: http
      cidr: 127.0.0.1/32
      port: {ORDERS_SERVER.server_address[1]}
      path_prefix: /orders/
      credential: orders
    - capability: tools.orders
      scheme: http
      cidr: 127.0.0.1/32
      port: {OTHER_SERVER.server_address[1]}
"""
config = write_mock_config(WORK, MOCK_PORT, tool_keys=[("author", author_public)], allow=ALLOW)
with open(config) as f:
    BASE_CONFIG = f.read()


def config_with(value_file, name="volent.yaml", allow_text=None):
    text = BASE_CONFIG.replace("egress:\n", f"""egress:
  credentials:
    orders:
      header: Authorization
      prefix: "Bearer "
      value_file: {value_file}
""", 1)
    if allow_text is not None:
        text = text.replace(ALLOW, allow_text)
    return write(name, text)


SECRET_FILE = write("data/secrets/orders.token", SECRET + "\n", 0o600)
config = config_with("data/secrets/orders.token")

# --- refused at start: the file's mode, CR LF in the value, a pattern host ------------------------------
loose = write("loose/orders.token", SECRET + "\n", 0o644)
r = run_cmd(opts.volent, "node", "--config", config_with(loose, "loose.yaml"), "--listen", "127.0.0.1:0",
            "--data-dir", os.path.join(WORK, "loose-data"))
check("a secret file of mode 0644 stops the node at start, naming the file",
      r.returncode != 0 and loose in r.stderr and "0644" in r.stderr and SECRET not in r.stdout + r.stderr,
      f"exit {r.returncode}: {r.stderr[-600:]}")
injected = write("crlf/orders.token", SECRET + "\r\nX-Injected: yes\n", 0o600)
r = run_cmd(opts.volent, "node", "--config", config_with(injected, "crlf.yaml"), "--listen", "127.0.0.1:0",
            "--data-dir", os.path.join(WORK, "crlf-data"))
check("a value with CR LF in it stops the node at start (header injection), without showing it",
      r.returncode != 0 and injected in r.stderr and "control character" in r.stderr
      and SECRET not in r.stdout + r.stderr, f"exit {r.returncode}: {r.stderr[-600:]}")
wide = config_with("data/secrets/orders.token", "wide.yaml", ALLOW.replace(
    "cidr: 127.0.0.1/32\n      port: " + str(ORDERS_SERVER.server_address[1]),
    "host: \"*\"\n      port: " + str(ORDERS_SERVER.server_address[1]), 1))
r = run_cmd(opts.volent, "check", wide)
check("volent check refuses a credential on an entry of host \"*\"",
      r.returncode != 0 and "must name one host" in r.stdout + r.stderr, r.stdout + r.stderr)

# --- the tool, the agent, the run ---------------------------------------------------------------------
sig = os.path.join(WORK, "fetch.sig")
signed = run_cmd(opts.volent, "tool", "sign", FETCH, "--key", os.path.join(WORK, "author.key"), "-o", sig)
added = run_cmd(opts.volent, "tool", "add", FETCH, "--sig", sig, "--config", config)
check("fetch: signed and added", signed.returncode == 0 and added.returncode == 0,
      signed.stderr + added.stdout + added.stderr)
digest = added.stdout.split()[1] if added.returncode == 0 else "sha256:" + "0" * 64

node = start(["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", os.path.join(WORK, "data")],
             "node", VOLENT_NODE)
PORT = node.port
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
    - name: fetch
      kind: wasm
      component: {digest}
      capability: tools.orders
      limits: {{memory_mb: 256, fuel: 20000000000, time_ms: 60000}}
"""
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
RUN_VIEW = json.dumps(run)

steps, after, JOURNAL_PAGES = {}, 0, []
while True:
    s, page = request(PORT, "GET", f"/v1/journal?after={after}&limit=1000")
    if s != 200:
        break
    JOURNAL_PAGES.append(json.dumps(page))
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


def answer_of(call):
    return call.get("result") if call.get("outcome") == "answered" else {}


# --- what arrived, what the tool was given ------------------------------------------------------------
first = answer_of(calls[0])
to_echo = [h for n, m, p, h in SEEN if n == "orders" and p == "/orders/echo"]
check("the header reaches the service with the credential's value",
      len(to_echo) == 1 and to_echo[0].get("Authorization") == "Bearer " + SECRET, str(SEEN)[:600])
echoed = json.loads(first.get("body", "{}"))
check("the tool's answer names the credential, and the echo carries the mark, not the value",
      first.get("status") == 200 and first.get("credential") == "orders" and echoed.get("ok") is True
      and echoed.get("you_sent") == "Bearer [credential orders]"
      and ["x-echo", "Bearer [credential orders]"] in [[n.lower(), v] for n, v in first.get("headers", [])],
      str(calls[0])[:600])
own = answer_of(calls[1])
check("a tool that sets Authorization itself is denied, naming the credential, and nothing is sent",
      own.get("error") == "denied" and "credential \"orders\"" in own.get("reason", "")
      and len(to_echo) == 1 and not any(h.get("Authorization") == "Bearer mine" for *_, h in SEEN),
      str(calls[1])[:400])
landed = [h for n, m, p, h in SEEN if n == "other"]
check("a redirect to another origin arrives without the credential",
      len(landed) == 1 and "Authorization" not in landed[0] and answer_of(calls[2]).get("status") == 200,
      str(SEEN)[:600] + str(calls[2])[:400])
s, page = request(PORT, "GET", "/v1/egress/denials")
DENIALS = json.dumps(page)
check("the denial is journaled", s == 200 and any(d.get("agent") == "clerk" for d in page.get("denials", [])),
      DENIALS[:400])

# --- the value is nowhere but in its file ---------------------------------------------------------------
exchanges_text = calls[0].get("http_exchanges", "")
check("the recorded exchange names the credential, not the value",
      '"credential":"orders"' in exchanges_text and SECRET not in exchanges_text, exchanges_text[:600])
check("the tool's stdin, its receipt and its result do not hold the value",
      all(SECRET not in json.dumps(c) for c in calls) and all(
          SECRET.encode() not in base64.b64decode(c.get("receipt", {}).get("payload", "") or b"")
          for c in calls), "")
check("the run's view, the journal's pages and the denials do not hold the value",
      SECRET not in RUN_VIEW and all(SECRET not in p for p in JOURNAL_PAGES) and SECRET not in DENIALS, "")
node.stop()
leaks = []
for root, _, files in os.walk(WORK):
    for name in files:
        path = os.path.join(root, name)
        if path in (SECRET_FILE, loose, injected) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            if SECRET.encode() in f.read():
                leaks.append(os.path.relpath(path, WORK))
check("no file of the data folder (journal, receipts, tool store), the outputs or the logs holds the value",
      leaks == [] and os.path.isdir(os.path.join(WORK, "data")), str(leaks))

# --- replay, without the service and without the credential --------------------------------------------
ORDERS_SERVER.shutdown()
OTHER_SERVER.shutdown()
node_pub = os.path.join(WORK, "data", "node.key.pub")
receipt = write("replay/fetch.receipt.json", json.dumps(calls[0].get("receipt", {})))
exchanges = write("replay/http-exchanges.jsonl", exchanges_text)
stdin = write("replay/fetch.stdin", calls[0].get("stdin", ""))
os.rename(SECRET_FILE, SECRET_FILE + ".gone")
before = len(SEEN)
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", node_pub, "--program", FETCH,
            "--stdin", stdin, "--input", "http-exchanges.jsonl=" + exchanges)
check("the call replays from the recorded answers with no service and no credential",
      r.returncode == 0 and "REPLAY OK" in r.stdout and len(SEEN) == before, r.stdout + r.stderr)
check.finish("egress credentials: ")
