#!/usr/bin/env python3
"""The Volent story of the main demo (docs/demo.md, "The Volent story").

    python3 scripts/demo-volent.py --volent BIN --kernel KERNEL [--dir DIR]

A Volent node runs three agents against `volent mock-model` and a small
internal order service (examples/volent/), every step a real command printed
with its output (`$ command`, its output indented, then the check
`-> ...: as expected`):

  1. the mock model and the order service start on 127.0.0.1;
  2. a tool author's key is made (`ampoule keygen`), volent.yaml and three
     agent manifests are written (examples/volent/, with the servers' ports
     and that key filled in), `volent check`ed; the Python tool
     examples/tools/refund_policy.py is signed and added to the node's tool
     store, and `volent node` starts on a fresh data folder;
  3. the agents are applied through the control API and listed;
  4. a refund run: the model (the mock's default plan) calls lookup_order,
     which goes through the egress gate to the order service, then
     issue_refund, which waits for a person's approval;
  5. SSRF attempts: the web-reader agent's tool asked for the cloud metadata
     address and for `localhost` is denied, listed by GET /v1/egress/denials
     and journaled; `volent egress test` denies another port of the order
     service's range and the metadata address written as IPv4-mapped IPv6;
  6. the node is killed (SIGKILL) while the refund waits for approval, and
     again while the approved refund call is in flight (the order service
     applied it and holds its answer); each time it restarts on the same
     data folder, and the run finishes with every side effect applied once;
  7. sealed tool calls: the refund-policy agent's run calls two Python
     tools, which run on Ampoule's kernel; the first one's receipt, fetched
     from the control API, is checked off the node with `ampoule-verify`
     (VERIFIED), replayed (REPLAY OK), and FAILED against a result it did
     not give; the second asks the order service for the order through its
     capability (the egress gate), and its call replays off the node from
     the recorded answer with the service stopped, while an altered answer
     is refused;
  8. `volent journal verify` and `volent journal digest` on the data folder.

A summary of the checks ends the story. Exit 0 only if every check held, 1
if one did not, 2 on a usage error. The working folder (DIR, new, empty or a
previous run's; else a new ${TMPDIR:-/tmp}/volent-demo.XXXXXX) is kept: the
configuration, manifests, the data folder, and each process's log.
Every process started here is stopped on exit, also on SIGINT/SIGTERM, and
dies with this script if it is killed (PR_SET_PDEATHSIG). Every wait is
bounded. Needs python3 (standard library); curl when installed, else the
control API is called with urllib.
"""
import argparse
import atexit
import ctypes
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "volent")
MARKER = ".volent-demo"
MOCK_KEY = "demo-mock-key"
WAIT = 60  # seconds, the bound of every wait
LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1

PROCS = []
CHECKS = []  # (name, held)


# --- output ----------------------------------------------------------------------------------------
def say(text=""):
    print(text, flush=True)


def step(title):
    say(f"\n== {title}")


def show(text):
    for line in text.rstrip("\n").splitlines():
        say("    " + line)


def check(name, held, detail=""):
    CHECKS.append((name, bool(held)))
    say(f"  -> {name}: " + ("as expected" if held else f"NOT as expected{': ' + detail if detail else ''}"))
    return bool(held)


class Stop(Exception):
    """A step the rest of the story depends on failed."""


def need(name, held, detail=""):
    if not check(name, held, detail):
        raise Stop(name)


# --- processes -------------------------------------------------------------------------------------
def die_with_parent():
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def how_ended(rc):
    if rc is None:
        return "still running"
    if rc < 0:
        return f"{signal.Signals(-rc).name} (signal {-rc})"
    return f"exit status {rc}"


def stop_all():
    for p in PROCS:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class Background:
    """A server started with `CMD &`: its output goes to LOG in the working folder."""

    def __init__(self, argv, log, ready, display=None):
        self.log = log
        say(f"$ {display or shlex.join(argv)} &")
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(argv, cwd=WORK, env=ENV, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=out, preexec_fn=die_with_parent)
        PROCS.append(self.proc)
        self.match = None
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and self.proc.poll() is None:
            self.match = next((m for m in map(re.compile(ready).match, self.lines()) if m), None)
            if self.match:
                show(self.match.group(0))
                return
            time.sleep(0.05)
        show(self.tail() or "(no output)")

    def lines(self):
        with open(self.log, errors="replace") as f:
            return f.read().splitlines()

    def tail(self, n=15):
        return "\n".join(self.lines()[-n:])

    def kill(self, sig):
        say(f"$ kill -{signal.Signals(sig).name[3:]} {self.proc.pid}")
        self.proc.send_signal(sig)
        try:
            self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            pass
        show(f"(process {self.proc.pid} ended: {how_ended(self.proc.poll())})")
        return self.proc.poll()


def command(argv, expect_rc=0, expect_out=None, name=None):
    """Runs a foreground command in the working folder; prints it, its output
    (stderr, then stdout) and, when named, the check of its exit status and
    output."""
    say(f"$ {shlex.join(argv)}")
    r = subprocess.run(argv, cwd=WORK, env=ENV, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=WAIT)
    show(r.stderr + r.stdout)
    if name is not None:
        ok = r.returncode == expect_rc and (expect_out is None or re.search(expect_out, r.stdout, re.M) is not None)
        check(name, ok, f"exit {r.returncode}")
    return r


# --- the control API (curl when installed) ---------------------------------------------------------
def http(method, url, body=None, ctype=None, file=None, display=True, quiet_body=False):
    """One HTTP request (body: text, or file: a file of the working folder);
    prints it as a command and its answer unless display is False (the polls
    of a bounded wait). Returns (status, parsed JSON or text), (None, None)
    when nothing came back."""
    # The node's API needs a credential: its bootstrap admin token, passed
    # as a header file so it is never on a command line.
    auth = os.path.join(WORK, "auth.header")
    node_url = globals().get("NODE_URL")
    to_node = bool(node_url) and url.startswith(node_url) and os.path.exists(auth)
    if CURL and display:
        argv = ["curl", "-sS", "-w", r"\nHTTP %{http_code}\n"] + (["-X", method] if method != "GET" else [])
        if to_node:
            argv += ["-H", "@auth.header"]
        if ctype:
            argv += ["-H", f"Content-Type: {ctype}"]
        if file:
            argv += ["--data-binary", f"@{file}"]
        elif body is not None:
            argv += ["-d", body]
        argv.append(url)
        say(f"$ {shlex.join(argv)}")
        r = subprocess.run(argv, cwd=WORK, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT)
        text, _, code = r.stdout.rstrip("\n").rpartition("\n")
        if r.returncode != 0 or not code.startswith("HTTP "):
            show(r.stderr or f"curl: exit {r.returncode}")
            return None, None
        status = int(code[5:])
    else:
        if display:
            say(f"$ (python3 urllib; curl is not installed) {method} {url}"
                + (f" @{file}" if file else f" {body}" if body is not None else ""))
        data = body.encode() if body is not None else None
        if file:
            with open(os.path.join(WORK, file), "rb") as f:
                data = f.read()
        headers = {"Content-Type": ctype} if ctype else {}
        if to_node:
            with open(auth) as f:
                name, _, value = f.read().strip().partition(": ")
            headers[name] = value
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=WAIT) as resp:
                status, text = resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode(errors="replace")
        except OSError as e:
            if display:
                show(f"error: {e}")
            return None, None
    try:
        value = json.loads(text) if text else None
    except ValueError:
        value = text
    if display:
        if not quiet_body:
            show(json.dumps(value, indent=1) if isinstance(value, (dict, list)) else str(value))
        show(f"HTTP {status}")
    return status, value


def api(method, path, body=None, ctype=None, **kw):
    return http(method, f"{NODE_URL}{path}", body, ctype, **kw)


def wait_for(what, probe):
    """Polls probe() (silently) until it returns a true value; bounded by WAIT."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    say(f"  (gave up waiting after {WAIT} s for {what})")
    return None


def run_status(agent, run, want):
    s, r = api("GET", f"/v1/agents/{agent}/runs/{run}", display=False)
    return s == 200 and r.get("status") in want and r


def journal():
    """Every entry of the journal (all pages) and its digest."""
    entries, after, digest = [], 0, None
    while True:
        s, page = api("GET", f"/v1/journal?after={after}&limit=1000", display=False)
        if s != 200:
            return None, None
        entries += page["entries"]
        digest = page["digest"]
        if page["next"] is None:
            return entries, digest
        after = page["next"]


def describe(e):
    """One line of a journal entry: what it holds, in a few words."""
    p = e.get("payload") or {}
    kind = e["kind"]
    if kind == "intent" and p.get("type") == "model":
        what = f"model {p.get('method')} {p.get('url')}"
    elif kind == "intent":
        what = f"tool {p.get('tool')}: {p.get('method')} {p.get('url')}"
    elif kind == "completion" and p.get("type") == "model":
        answer = p.get("answer") or {}
        calls = [c.get("name") for c in answer.get("tool_calls") or []]
        what = (f"model {p.get('outcome')}: " +
                (f"call {', '.join(calls)}" if calls else f"text {json.dumps(answer.get('text'))}"))
    elif kind == "completion":
        what = f"tool {p.get('tool')}: {p.get('outcome')}" + (f", HTTP {p['status']}" if "status" in p else "")
    elif kind == "approval-requested":
        what = f"tool {p.get('tool')} waits for a person"
    elif kind == "approval-decided":
        what = f"{p.get('decision')} by {p.get('by')}"
    elif kind == "egress-denied":
        what = f"{p.get('method')} {p.get('url')} ({p.get('capability')}): {p.get('reason')}"
    elif kind == "run-finished":
        what = p.get("status", "")
    else:
        what = ""
    return f"#{e['seq']:<3} {kind:<18} {e['key']:<30} {what}"


def show_journal(keep, title):
    """GET /v1/journal, printed one line per entry that keep(entry) selects."""
    entries, digest = journal()
    if CURL:
        say(f"$ curl -sS '{NODE_URL}/v1/journal?limit=1000'")
    else:
        say(f"$ (python3 urllib; curl is not installed) GET {NODE_URL}/v1/journal?limit=1000")
    if entries is None:
        show("(no answer)")
        return [], None
    chosen = [e for e in entries if keep(e)]
    show(f"({len(entries)} entries, digest {digest['head']}; {title}, one line each: seq, kind, key, what)")
    show("\n".join(describe(e) for e in chosen))
    return chosen, digest


def steps_of(entries):
    """{step: [kinds]} of a run's entries."""
    out = {}
    for e in entries:
        out.setdefault(e["step"], []).append(e["kind"])
    return out


def orders_stats(display=True):
    return http("GET", f"{ORDERS_URL}/stats", display=display)[1] or {}


# --- the story -------------------------------------------------------------------------------------
def start_node(number):
    node = Background(["volent", "node", "--config", "volent.yaml", "--listen", "127.0.0.1:0",
                       "--data-dir", "data"], os.path.join(WORK, f"node.{number}.log"),
                      r"^volent node: listening on (http://127\.0\.0\.1:\d+)$")
    need(f"start {number}: the node listens on 127.0.0.1", node.match, node.tail())
    token_file = os.path.join(WORK, "data", "bootstrap-admin.token")
    if os.path.exists(token_file):
        with open(os.open(os.path.join(WORK, "auth.header"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("Authorization: Bearer " + open(token_file).read().strip() + "\n")
    global NODE_URL
    NODE_URL = node.match.group(1)
    return node


def story():
    global ORDERS_URL
    step("1. the model and the internal order service, on 127.0.0.1")
    mock = Background(["volent", "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
                      os.path.join(WORK, "mock-model.log"),
                      r"^volent mock-model: listening on http://127\.0\.0\.1:(\d+)$")
    need("the mock model listens", mock.match, mock.tail())
    mock_port = mock.match.group(1)
    shutil.copy(os.path.join(EXAMPLES, "orders_service.py"), WORK)
    python = sys.executable
    shown = "python3" if os.path.realpath(shutil.which("python3") or "") == os.path.realpath(python) else python
    orders = Background([python, "orders_service.py", "--port", "0", "--hold", "/api/refunds"],
                        os.path.join(WORK, "orders-service.log"), r"^(\d+)$",
                        display=f"{shown} orders_service.py --port 0 --hold /api/refunds")
    need("the order service listens (its port on its first line)", orders.match, orders.tail())
    orders_port = orders.match.group(1)
    ORDERS_URL = f"http://127.0.0.1:{orders_port}"

    step("2. the node's configuration and the agents, checked; a sealed tool signed and stored; the node starts")
    os.makedirs(os.path.join(WORK, "agents"), exist_ok=True)
    command(["ampoule", "keygen", "-o", "tool-author.key"], name="a tool author's key pair, exit 0")
    with open(os.path.join(WORK, "tool-author.key.pub")) as f:
        tool_key = f.read().split()[-1]
    files = ["volent.yaml", "agents/refund.agent.yaml", "agents/web-reader.agent.yaml", "agents/policy.agent.yaml"]
    for name in files:
        with open(os.path.join(EXAMPLES, name)) as f:
            text = (f.read().replace("@MOCK_PORT@", mock_port).replace("@ORDERS_PORT@", orders_port)
                    .replace("@TOOL_KEY@", tool_key))
        with open(os.path.join(WORK, name), "w") as f:
            f.write(text)
    with open(os.path.join(WORK, "mock-model.key"), "w") as f:
        f.write(MOCK_KEY + "\n")
    os.chmod(os.path.join(WORK, "mock-model.key"), 0o600)
    say(f"(written from examples/volent/ with the ports {mock_port} (model) and {orders_port} "
        f"(order service) and the tool author's public key: {', '.join(files)}; mock-model.key, mode 0600)")
    command(["sed", "-n", "/^egress:/,$p", "volent.yaml"])
    command(["volent", "check", "volent.yaml"], name="volent.yaml is valid, exit 0")
    command(["volent", "check", "--config", "volent.yaml"] + files[1:],
            name="the three manifests are valid under this allowlist, exit 0")
    for tool in ("refund_policy", "order_refund"):
        shutil.copy(os.path.join(ROOT, "examples", "tools", tool + ".py"), WORK)
        command(["volent", "tool", "sign", tool + ".py", "--key", "tool-author.key", "-o", tool + ".sig"],
                name=f"the author signs the Python tool {tool}.py, exit 0")
        command(["volent", "tool", "add", tool + ".py", "--sig", tool + ".sig", "--config", "volent.yaml",
                 "--data-dir", "data"], expect_out=r"^added sha256:[0-9a-f]{64} \(python, ",
                name="the node's tool store takes it: the signature is by a trusted key and names its SHA-256")
    node = start_node(1)

    step("3. the agents, applied through the control API and listed")
    for name, agent in (("agents/refund.agent.yaml", "refund-agent"), ("agents/web-reader.agent.yaml", "web-reader"),
                        ("agents/policy.agent.yaml", "refund-policy")):
        s, body = api("POST", "/v1/agents", ctype="application/yaml", file=name, quiet_body=True)
        check(f"{agent} applied: 201", s == 201 and body.get("name") == agent, f"HTTP {s} {body}")
    s, body = api("GET", "/v1/agents")
    names = [(a.get("name"), a.get("status")) for a in (body or {}).get("agents", [])]
    check("the three agents listed, idle",
          names == [("refund-agent", "idle"), ("refund-policy", "idle"), ("web-reader", "idle")], str(names))

    step("4. a refund run: the model calls lookup_order, through the egress gate to the order service")
    refund = "/v1/agents/refund-agent/runs/order-A-1002"
    s, body = api("POST", "/v1/agents/refund-agent/runs",
                  json.dumps({"id": "order-A-1002", "input": {"order_id": "A-1002", "amount": "47.59"}}),
                  "application/json")
    need("the run starts: 201", s == 201, f"HTTP {s}")
    wait_for("the refund run to wait for approval",
             lambda: run_status("refund-agent", "order-A-1002", ("waiting-approval", "finished", "failed")))
    s, run = api("GET", refund)
    need("the run waits for approval of issue_refund after 3 steps",
         s == 200 and run.get("status") == "waiting-approval" and run.get("steps_done") == 3, f"HTTP {s} {run}")
    mine = lambda e: e["agent"] == "refund-agent" and e["run"] == "order-A-1002"
    entries, _ = show_journal(mine, "the run's entries")
    lookup = next((e["payload"] for e in entries if e["kind"] == "completion" and e["step"] == 2), {})
    check("journal: model step 1 asked for lookup_order; step 2 answered HTTP 200 by the order service; "
          "model step 3 asked for issue_refund; step 4 waits for a person",
          steps_of(entries) == {0: ["run-started"], 1: ["intent", "completion"], 2: ["intent", "completion"],
                                3: ["intent", "completion"], 4: ["approval-requested"]}
          and lookup.get("status") == 200 and lookup.get("body", {}).get("order_id") == "A-1002",
          str(steps_of(entries)))
    stats = orders_stats()
    lookup_key = "refund-agent/order-A-1002/2"
    check("the order service counted one request, GET /api/orders/A-1002 under the step's key, no refund",
          stats.get("keys") == {lookup_key: {"request": "GET /api/orders/A-1002", "deliveries": 1, "applied": 1}}
          and stats.get("refunds_issued") == 0 and stats.get("unkeyed") == 0, str(stats))
    s, body = api("GET", "/v1/approvals")
    pending = (body or {}).get("approvals", [])
    need("one approval pending: issue_refund, step 4",
         s == 200 and len(pending) == 1 and pending[0].get("tool") == "issue_refund" and pending[0].get("step") == 4,
         str(body))
    approval = pending[0]["id"]

    step("5. SSRF: the web-reader's tool sent to the cloud metadata address and to localhost")
    probes = {"probe-metadata": "169.254.169.254", "probe-localhost": "localhost"}
    for run_id, host in probes.items():
        s, body = api("POST", "/v1/agents/web-reader/runs",
                      json.dumps({"id": run_id, "input": {"host": host, "page": "latest"}}), "application/json",
                      quiet_body=True)
        check(f"run {run_id} starts: 201", s == 201, f"HTTP {s} {body}")
    for run_id in probes:
        wait_for(f"run {run_id}", lambda r=run_id: run_status("web-reader", r, ("finished", "failed")))
    s, body = api("GET", "/v1/runs?agent=web-reader")
    ended = {r.get("id"): (r.get("status"), (r.get("output") or {}).get("text")) for r in (body or {}).get("runs", [])}
    check("both runs finished: the model was told the call was denied and answered",
          ended == {run_id: ("finished", "done: 1 tool call(s)") for run_id in probes}, str(ended))
    s, body = api("GET", "/v1/egress/denials?agent=web-reader&order=oldest")
    denials = {d.get("run"): d for d in (body or {}).get("denials", [])}
    metadata, local = denials.get("probe-metadata", {}), denials.get("probe-localhost", {})
    check("listed: GET http://169.254.169.254/latest denied as cloud-metadata, under step 2's key",
          metadata.get("url") == "http://169.254.169.254/latest" and "cloud-metadata" in metadata.get("reason", "")
          and metadata.get("key") == "web-reader/probe-metadata/2", str(metadata))
    check("listed: GET http://localhost/latest denied, the name resolving to loopback",
          local.get("url") == "http://localhost/latest" and "loopback" in local.get("reason", "")
          and local.get("key") == "web-reader/probe-localhost/2", str(local))
    entries, _ = show_journal(lambda e: e["kind"] == "egress-denied", "the egress-denied entries")
    check("journal: the two denials, each under its step's key",
          sorted(e["key"] for e in entries) == ["web-reader/probe-localhost/2", "web-reader/probe-metadata/2"],
          str([e["key"] for e in entries]))
    command(["volent", "egress", "test", "--config", "volent.yaml", "--capability", "orders.internal",
             f"http://127.0.0.1:{mock_port}/api/orders/A-1002"], expect_rc=1, expect_out=r"^deny: ",
            name="orders.internal on another port of 127.0.0.1: deny, exit 1")
    command(["volent", "egress", "test", "--config", "volent.yaml", "--capability", "web",
             "http://[::ffff:169.254.169.254]/latest/meta-data/"], expect_rc=1, expect_out=r"^deny: .*cloud-metadata",
            name="the metadata address written as IPv4-mapped IPv6 under web: deny (cloud-metadata), exit 1")
    stats = orders_stats()
    check("nothing more reached the order service", list(stats.get("keys", {})) == [lookup_key]
          and stats["keys"][lookup_key]["deliveries"] == 1 and stats.get("unkeyed") == 0, str(stats))

    step("6. SIGKILL in the middle of the refund run, twice; restarts on the same data folder")
    rc = node.kill(signal.SIGKILL)
    check("the node is killed while the run waits for approval", rc == -signal.SIGKILL, how_ended(rc))
    node = start_node(2)
    s, run = api("GET", refund)
    check("after the restart: still waiting for approval, 3 steps done",
          s == 200 and run.get("status") == "waiting-approval" and run.get("steps_done") == 3, f"HTTP {s} {run}")
    s, body = api("GET", f"/v1/approvals/{approval}")
    check(f"approval {approval} still pending", s == 200 and body.get("state") == "pending", f"HTTP {s} {body}")
    s, body = api("POST", f"/v1/approvals/{approval}/approve",
                  json.dumps({"reason": "damage confirmed on the photo"}), "application/json")
    need("approved: 200", s == 200 and body.get("state") == "approved", f"HTTP {s} {body}")
    refund_key = "refund-agent/order-A-1002/4"
    say(f"(waiting, at most {WAIT} s, until the order service has received the refund call)")
    held = wait_for("the refund call", lambda: refund_key in orders_stats(display=False).get("keys", {}))
    stats = orders_stats()
    need("the order service applied the refund (refund rf-1) and holds its answer",
         held and stats.get("refunds_issued") == 1 and stats["keys"].get(refund_key, {}).get("applied") == 1,
         str(stats))
    rc = node.kill(signal.SIGKILL)
    check("the node is killed while the refund call is in flight: applied, its completion not journaled",
          rc == -signal.SIGKILL, how_ended(rc))
    node = start_node(3)
    finished = wait_for("the refund run to end", lambda: run_status("refund-agent", "order-A-1002",
                                                                     ("finished", "failed")))
    s, run = api("GET", refund)
    check("the run finished with the model's final answer",
          finished and s == 200 and run.get("status") == "finished"
          and (run.get("output") or {}).get("text") == "done: 2 tool call(s)", f"HTTP {s} {run}")
    entries, _ = show_journal(mine, "the run's entries")
    by_step = steps_of(entries)
    refund_done = next((e["payload"] for e in entries if e["kind"] == "completion" and e["step"] == 4), {})
    check("journal: one intent and one completion per step, the approval decided, the run finished",
          by_step == {0: ["run-started", "run-finished"], 1: ["intent", "completion"], 2: ["intent", "completion"],
                      3: ["intent", "completion"], 4: ["approval-requested", "approval-decided", "intent", "completion"],
                      5: ["intent", "completion"]}
          and refund_done.get("status") == 200, str(by_step))
    stats = orders_stats()
    keys = stats.get("keys", {})
    check("the order service applied each side effect exactly once: one lookup, one refund (rf-1)",
          set(keys) == {lookup_key, refund_key} and all(k["applied"] == 1 for k in keys.values())
          and stats.get("refunds_issued") == 1 and stats.get("unkeyed") == 0, str(stats))
    check("the refund was re-issued after the restart with the same key and deduplicated (2 deliveries)",
          keys.get(refund_key, {}).get("deliveries") == 2 and keys[lookup_key]["deliveries"] == 1, str(keys))
    s, mstats = http("GET", f"http://127.0.0.1:{mock_port}/stats")
    check("the mock model: no errors, no model call repeated (no duplicate Idempotency-Key)",
          s == 200 and mstats.get("errors") == 0 and mstats.get("duplicates") == 0, str(mstats))

    step("7. sealed tool calls: Python tools run on Ampoule's kernel, one asks the order service through its "
         "capability; their receipts are checked off the node")
    order = {"amount_cents": 12000, "days_since_delivery": 3, "opened": True,
             "orders_api": f"{ORDERS_URL}/api", "order_id": "A1003"}
    s, body = api("POST", "/v1/agents/refund-policy/runs", json.dumps({"id": "policy-1", "input": order}),
                  "application/json")
    check("the refund-policy run starts: 201", s == 201, f"HTTP {s} {body}")
    run = wait_for("the refund-policy run to finish", lambda: run_status("refund-policy", "policy-1", ("finished", "failed")))
    s, run = api("GET", "/v1/agents/refund-policy/runs/policy-1")
    calls = ((run or {}).get("tool_calls") or []) + [{}, {}]
    call, asked = calls[0], calls[1]
    check("the run finished; its two tool calls answered, each with a receipt",
          s == 200 and run.get("status") == "finished" and call.get("outcome") == "answered" and "receipt" in call
          and asked.get("tool") == "order_refund" and asked.get("outcome") == "answered" and "receipt" in asked,
          f"HTTP {s} {str(run)[:300]}")
    s, receipt = api("GET", call.get("receipt", "/v1/none"), quiet_body=True)
    check("the control API serves the receipt: 200", s == 200 and isinstance(receipt, dict), f"HTTP {s}")
    with open(os.path.join(WORK, "receipt.json"), "w") as f:
        json.dump(receipt if isinstance(receipt, dict) else {}, f)
    with open(os.path.join(WORK, "arguments.json"), "w") as f:
        f.write(call.get("stdin", ""))
    say("(saved as receipt.json; the call's stdin, tool_calls[0].stdin, as arguments.json)")
    proof = ["--key", "data/node.key.pub", "--kernel", KERNEL, "--program", "refund_policy.py", "--stdin",
             "arguments.json"]
    command(["ampoule-verify", "receipt.json"] + proof, expect_out=r"^VERIFIED$",
            name="off the node: the receipt is signed by the node's key and names this program, kernel and stdin")
    command(["ampoule-verify", "--replay", "receipt.json"] + proof, expect_out=r"^REPLAY OK$",
            name="off the node: a replay gives the same output, fuel and status")
    with open(os.path.join(WORK, "claimed.json"), "w") as f:
        f.write('{"refundable_cents": 12000, "rule": "full"}\n')
    command(["ampoule-verify", "receipt.json", "--key", "data/node.key.pub", "--output", "claimed.json"],
            expect_rc=1, expect_out=r"^FAILED$",
            name="a result the tool did not give (the full amount) is FAILED against the receipt")

    say("order_refund asked the order service for the order through its capability, orders.internal:")
    s, stats = http("GET", f"{ORDERS_URL}/stats")
    order_key = f"refund-policy/policy-1/{asked.get('step')}/http/1"
    check("the order service got one GET of /api/orders/A1003, with the node's Idempotency-Key (step key/http/1)",
          s == 200 and (stats.get("keys") or {}).get(order_key, {}).get("deliveries") == 1, str(stats)[:400])
    s, body = api("GET", "/v1/runs/policy-1", quiet_body=True)
    answer = next((c for c in (body or {}).get("tool_calls", []) if c.get("tool") == "order_refund"), {})
    exchanges = answer.get("http_exchanges", "")
    show(f"(GET /v1/runs/policy-1: the http_exchanges of step {asked.get('step')}) {exchanges.strip()[:200]}...")
    check("the run, found by its id alone, lists the request and its answer as the call recorded them",
          s == 200 and '"url":"' + ORDERS_URL + '/api/orders/A1003"' in exchanges, str(body)[:300])
    s, receipt = api("GET", asked.get("receipt", "/v1/none"), quiet_body=True)
    for name, text in (("order-receipt.json", json.dumps(receipt if isinstance(receipt, dict) else {})),
                       ("order-arguments.json", asked.get("stdin", "")), ("http-exchanges.jsonl", exchanges)):
        with open(os.path.join(WORK, name), "w") as f:
            f.write(text)
    say("(its receipt, stdin and recorded exchanges saved as order-receipt.json, order-arguments.json and "
        "http-exchanges.jsonl)")
    orders.kill(signal.SIGTERM)
    say("(the order service is stopped: the replay needs no network)")
    order_proof = ["--key", "data/node.key.pub", "--kernel", KERNEL, "--program", "order_refund.py", "--stdin",
                   "order-arguments.json", "--input", "http-exchanges.jsonl"]
    command(["ampoule-verify", "--replay", "order-receipt.json"] + order_proof, expect_out=r"^REPLAY OK$",
            name="off the node: the call replays from the recorded answer, the same result, fuel and status")
    os.makedirs(os.path.join(WORK, "altered"), exist_ok=True)
    with open(os.path.join(WORK, "altered", "http-exchanges.jsonl"), "w") as f:
        f.write(exchanges.replace("47.59", "470.59"))
    command(["ampoule-verify", "--replay", "order-receipt.json"] + order_proof[:-1] + ["altered/http-exchanges.jsonl"],
            expect_rc=1, expect_out=r"^REPLAY FAILED: input http-exchanges.jsonl differs from the receipt$",
            name="an answer altered in the record (the price) no longer matches what the receipt signed")

    step("8. the journal: verified and its digest")
    s, body = api("GET", "/v1/journal?limit=1", quiet_body=True)
    digest = (body or {}).get("digest") or {}
    show(f"(its digest member) {json.dumps(digest)}")
    rc = node.kill(signal.SIGTERM)
    check("SIGTERM stops the node, exit 0", rc == 0, how_ended(rc))
    want = f"{digest.get('entries')} entries, {digest.get('head')}"
    command(["volent", "journal", "verify", "--data-dir", "data"], expect_out=rf"^journal OK: {re.escape(want)}$",
            name=f"journal OK: {want}, the control API's digest")
    command(["volent", "journal", "digest", "--data-dir", "data"], expect_out=rf"^journal: {re.escape(want)}$",
            name="the same digest")


def prepare(folder):
    """The working folder: new, empty, or one this story made before (emptied)."""
    if folder is None:
        return tempfile.mkdtemp(prefix="volent-demo.", dir=os.environ.get("TMPDIR") or "/tmp")
    folder = os.path.abspath(folder)
    if os.path.isdir(folder) and os.listdir(folder):
        if not os.path.exists(os.path.join(folder, MARKER)):
            sys.exit(f"demo-volent: {folder} is not empty and not a folder of an earlier run (no {MARKER}); "
                     "name a new or empty folder")
        shutil.rmtree(folder)
    os.makedirs(folder, exist_ok=True)
    return folder


def main():
    global WORK, ENV, CURL, KERNEL
    parser = argparse.ArgumentParser(description="The Volent story of the main demo (docs/demo.md).")
    parser.add_argument("--volent", required=True, help="the volent binary")
    parser.add_argument("--kernel", required=True,
                        help="the Ampoule kernel (ampoule kernel path): the node runs sealed tools on it, "
                             "and ampoule-verify checks a receipt against it")
    parser.add_argument("--dir", help="the working folder (new, empty or an earlier run's)")
    args = parser.parse_args()
    volent = os.path.abspath(args.volent)
    if not os.access(volent, os.X_OK):
        print(f"demo-volent: {args.volent} is not an executable volent binary", file=sys.stderr)
        return 2
    for tool in ("ampoule", "ampoule-verify"):
        if not os.access(os.path.join(os.path.dirname(volent), tool), os.X_OK):
            print(f"demo-volent: no {tool} beside {volent} (the story uses both)", file=sys.stderr)
            return 2
    KERNEL = os.path.abspath(args.kernel)
    if not os.path.isfile(KERNEL):
        print(f"demo-volent: no kernel file {args.kernel} (scripts/build-kernel.sh makes one)", file=sys.stderr)
        return 2
    try:
        WORK = prepare(args.dir)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    open(os.path.join(WORK, MARKER), "w").close()
    # `volent`, `ampoule` and `ampoule-verify` in the printed commands are the
    # binaries of this build: their folder comes first on PATH. The node runs
    # its sealed tools on the same kernel.
    ENV = dict(os.environ, PATH=os.path.dirname(volent) + os.pathsep + os.environ.get("PATH", ""),
               AMPOULE_KERNEL=KERNEL)
    CURL = shutil.which("curl") is not None
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda n, _: sys.exit(128 + n))
    atexit.register(stop_all)
    say(f"volent story: working folder {WORK} (kept afterwards)")
    say(f"volent is {volent}; the control API is called with "
        + ("curl" if CURL else "python3 urllib (curl is not installed)"))
    t0 = time.monotonic()
    stopped = None
    try:
        story()
    except Stop as e:
        stopped = str(e)
    except Exception as e:  # an unexpected answer: reported as a failed check, never a traceback alone
        stopped = f"{type(e).__name__}: {e}"
        traceback.print_exc()
        check("the story ran to its end", False, stopped)
    finally:
        stop_all()
    failed = [name for name, held in CHECKS if not held]
    step("summary")
    say(f"volent story: {len(CHECKS) - len(failed)}/{len(CHECKS)} checks as expected "
        f"({time.monotonic() - t0:.0f} s)")
    for name in failed:
        say(f"  NOT as expected: {name}")
    if stopped:
        say(f"  stopped early at: {stopped}; logs of each process in {WORK}")
    say(f"working folder kept: {WORK}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
