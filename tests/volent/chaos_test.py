#!/usr/bin/env python3
"""The chaos test (docs/chaos.md): `volent node` killed with SIGKILL at five
points of its agent loop, restarted each time, and every side effect still
applied exactly once.

  tests/volent/chaos_test.py [--build DIR | --volent BIN] [--points P,P,...]
                             [--agents N] [--steps N] [--timeout S] [--keep] [--ignore-key]
                             [--sealed-tool MODULE]

For each kill point (default: before-intent after-intent after-effect
mid-commit replay), on a fresh data folder:
  1. starts tests/volent/chaos_receiver.py, a local HTTP receiver that
     honours Idempotency-Key (applies each key at most once) and counts
     deliveries and applied effects per key and per logical effect;
  2. starts `volent mock-model --listen 127.0.0.1:0` (the agents' model:
     its default plan calls every tool once, in order, then answers), and
     writes a node configuration allowing POST to the receiver (capability
     chaos.receiver) and to the mock (capability model.mock, with a key
     file), and N agents (default 100; half anthropic, half
     openai-compatible, both with the mock as endpoint), each with S http
     tools (default 4) posting to /effect/AGENT/1..S on the receiver; with
     --sealed-tool (the example refund_policy.wasm), each agent also has a
     last, wasm tool `policy` that runs sealed (docs/tools.md), signed with
     a fixed key and added to the node's tool store;
  3. starts `volent node` with VOLENT_CRASH_AT=POINT:K (K chosen so the
     crash lands mid-way), applies the agents and starts one run per agent
     (POST /v1/agents/AGENT/runs with a fixed id), tolerating the node's
     death at any moment; waits (bounded) for it to die by SIGKILL;
     replay: the first crash is at after-effect, then the node is
     restarted with VOLENT_CRASH_AT=replay:M (M from the journal left
     behind: half the steps recorded done in unfinished runs) and must die
     again while replaying;
  4. restarts the node without the variable, re-POSTs every run with the
     same id (200: it existed; 201: the crash came before it was
     journaled) and waits (bounded) until every run is finished;
  5. counts: completed = tool completions in the journal (every page of
     GET /v1/journal) answered 200, one per agent and tool; duplicated =
     logical effects the receiver applied more than once; lost = logical
     effects it never applied; with --sealed-tool, every agent's `policy`
     call must be completed exactly once, answered with the module's result
     for the run's input and a receipt. Then SIGTERM (status 0 expected) and
     `volent journal verify` on the data folder.
Prints per point
  chaos: POINT: N/N completed, D duplicated, L lost
    re-delivered: K keys (deduplicated by the receiver); node died: ...
and a `FAIL: ...` line for anything else wrong (a node that did not die
where it should, a run stuck or failed, a request without
Idempotency-Key, a re-delivery with another body, a journal that does not
verify...). Exit 0 only if every point has N/N completed, 0 duplicated,
0 lost and no FAIL; 1 otherwise; 2 on a usage error. `skipped: REASON`
(exit 0) without the binary, or a node that runs agents.

--timeout S bounds each wait (the node's death, the runs' end; default
60). --keep leaves the work folder (data folders, node stderr, receiver
stats) and prints where. --ignore-key runs the receiver as one that does
not honour Idempotency-Key (it applies every delivery): the control case,
where every re-delivery becomes a duplicate and the test must fail. Every
process started here is stopped on exit, including on SIGINT/SIGTERM, and
dies with the test if it is killed (PR_SET_PDEATHSIG, tests/harness/).

Environment: VOLENT, the volent binary (default build/bin/volent; --build
DIR means DIR/bin/volent). scripts/chaos.sh runs this file with the same
options.
"""
import argparse, atexit, base64, http.client, json, os, re, shutil, signal, sqlite3, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.cleanup import die_with_parent, kill_at_exit, work_folder  # noqa: E402
from harness.http_client import request  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, Server, how_ended  # noqa: E402

KILL_POINTS = ["before-intent", "after-intent", "after-effect", "mid-commit", "replay"]
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RECEIVER = os.path.join(HERE, "chaos_receiver.py")


def usage_error(message):
    print(f"chaos: {message}", file=sys.stderr)
    sys.exit(2)


parser = argparse.ArgumentParser(prog="chaos", description="volent node killed at five points of its agent loop")
where = parser.add_mutually_exclusive_group()
where.add_argument("--build", metavar="DIR", help="use DIR/bin/volent")
where.add_argument("--volent", metavar="BIN", help="default: $VOLENT, else build/bin/volent")
parser.add_argument("--points", default=",".join(KILL_POINTS), metavar="P,P,...")
parser.add_argument("--agents", type=int, default=100)
parser.add_argument("--steps", type=int, default=4)
parser.add_argument("--timeout", type=int, default=60, metavar="S")
parser.add_argument("--keep", action="store_true", help="leave the work folder and print where")
parser.add_argument("--ignore-key", action="store_true", help="a receiver that applies every delivery (must fail)")
parser.add_argument("--sealed-tool", metavar="MODULE",
                    help="refund_policy.wasm (examples/tools/): each agent also calls it as a sealed wasm tool")
args = parser.parse_args()
VOLENT = (os.path.join(args.build, "bin", "volent") if args.build else
          args.volent or os.environ.get("VOLENT") or os.path.join(ROOT, "build", "bin", "volent"))
POINTS = [p for p in args.points.replace(" ", ",").split(",") if p]
for p in POINTS:
    if p not in KILL_POINTS:
        usage_error(f"unknown kill point '{p}' ({' '.join(KILL_POINTS)})")
if not 1 <= args.agents <= 1000:
    usage_error("--agents must be 1-1000")
if not 1 <= args.steps <= 64:
    usage_error("--steps must be 1-64")
if args.timeout < 5:
    usage_error("--timeout must be a whole number of seconds, at least 5")
AGENTS, STEPS, TIMEOUT, KEEP, IGNORE_KEY = args.agents, args.steps, args.timeout, args.keep, args.ignore_key
skip_unless_runs(VOLENT, "node", hint="ninja -C build volent, or --build DIR")
SEALED = args.sealed_tool
if SEALED and not os.path.isfile(SEALED):
    print(f"note: no {SEALED} (tests/volent/tool.cmake builds it); the agents call http tools only")
    SEALED = None
# The key that signs the sealed tool: RFC 8032's test key 1 (its secret is
# public; tests and examples only), whose public key is known without a
# crypto library.
TOOL_KEY_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
TOOL_PUBLIC_KEY = base64.b64encode(
    bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")).decode()

sys.stdout.reconfigure(line_buffering=True)
T0 = time.monotonic()
BUDGET = 540  # seconds for the whole run: under the ctest TIMEOUT (600) even when every wait times out
# Every process started here is stopped on exit, and dies with this one if it is killed (tests/harness/cleanup.py).
WORK = work_folder("volent-chaos-", keep=KEEP)
if KEEP:
    atexit.register(lambda: print(f"chaos: work folder kept: {WORK}"))


# --- the receiver ----------------------------------------------------------------------------------
class Receiver:
    def __init__(self, folder):
        with open(os.path.join(folder, "receiver.stderr"), "wb") as err:
            self.proc = kill_at_exit(subprocess.Popen(
                [sys.executable, RECEIVER] + (["--ignore-key"] if IGNORE_KEY else []), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=err, preexec_fn=die_with_parent))
        line = self.proc.stdout.readline().decode().strip()
        if not line.isdigit():
            raise RuntimeError(f"the receiver did not print its port (got {line!r}, {how_ended(self.proc.poll())})")
        self.port = int(line)

    def stats(self):
        status, _, data = request("127.0.0.1", self.port, "GET", "/stats")
        if status != 200:
            raise RuntimeError(f"receiver /stats: HTTP {status}")
        return json.loads(data)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


# --- the mock model ----------------------------------------------------------------------------------
MOCK_KEY = "sk-chaos-mock-key"


class MockModel(Server):
    """`volent mock-model` on a free loopback port: the agents' model (its
    default plan calls every tool offered once, in order, with the run's
    input, then answers "done: N tool call(s)")."""

    def __init__(self, folder):
        super().__init__([VOLENT, "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
                         os.path.join(folder, "mock-model.stderr"), VOLENT_MOCK_MODEL, stdout_too=False)
        self.key_file = os.path.join(folder, "model.key")
        with open(os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(MOCK_KEY + "\n")

    def stats(self):
        status, _, data = request("127.0.0.1", self.port, "GET", "/stats")
        return json.loads(data) if status == 200 else {}


# --- the node ----------------------------------------------------------------------------------------
CRASH_RE = re.compile(r"crash point (\S+) #(\d+) reached")


class Node(Server):
    """One run of `volent node` on a data folder; `crash` is POINT:N or None.
    A node that dies before listening (the replay point can do that) has
    port None: the caller judges."""

    def __init__(self, folder, config, data, number, crash=None):
        self.crash = crash
        env = dict(os.environ)
        env.pop("VOLENT_CRASH_AT", None)
        if crash:
            env["VOLENT_CRASH_AT"] = crash
        super().__init__([VOLENT, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", data],
                         os.path.join(folder, f"node.{number}.stderr"), VOLENT_NODE, env=env,
                         may_die_early=True, stdout_too=False)

    def survives(self, seconds=3):
        """True if the node is still running after `seconds`. A request can
        fail because the node is being killed a moment before its exit can
        be collected: this tells that from a node that refuses."""
        try:
            self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            return True
        return False

    def died_at(self):
        """The crash point the node reported before its SIGKILL, or None."""
        m = CRASH_RE.search(self.stderr())
        return f"{m.group(1)} #{m.group(2)}" if m else None

    def request(self, method, path, body=None, conn=None, timeout=20):
        """(status, parsed body or None); status 0 if no answer came."""
        try:
            status, _, data = request("127.0.0.1", self.port, method, path, body, conn=conn, timeout=timeout)
        except (OSError, http.client.HTTPException):
            return 0, None
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None


# --- what the test applies -------------------------------------------------------------------------
def agent_name(i):
    return f"chaos-{i:04d}"


def run_id(i):
    return f"run-{i:04d}"


def tool_name(n):
    return f"effect_{n}"


def config_yaml(port, mock):
    return f"""# Written by scripts/chaos.sh: POST to the chaos receiver and to the mock model only.
apiVersion: volent/v1
kind: NodeConfig
listen: 127.0.0.1:8470
data_dir: data
egress:
  allow:
    - capability: chaos.receiver
      scheme: http
      cidr: 127.0.0.1/32
      port: {port}
      path_prefix: /effect/
      methods: [POST]
    - capability: model.mock
      scheme: http
      cidr: 127.0.0.1/32
      port: {mock.port}
      methods: [POST]
model_keys:
  - capability: model.mock
    key_file: {mock.key_file}
""" + (f"""tool_keys:
  - name: chaos
    public_key: {TOOL_PUBLIC_KEY}
""" if SEALED else "")


def sign_sealed_tool():
    """Signs the policy module once (WORK/policy.sig) with TOOL_KEY_SEED."""
    sig = os.path.join(WORK, "policy.sig")
    if os.path.exists(sig):
        return sig
    key_file = os.path.join(WORK, "tool.key")
    with open(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
        f.write("ed25519-secret " + base64.b64encode(TOOL_KEY_SEED).decode() + "\n")
    subprocess.run([VOLENT, "tool", "sign", SEALED, "--key", key_file, "-o", sig], check=True, capture_output=True)
    return sig


def add_sealed_tool(config, data):
    """Adds the signed policy module to the node's store; its digest."""
    added = subprocess.run([VOLENT, "tool", "add", SEALED, "--sig", sign_sealed_tool(),
                            "--config", config, "--data-dir", data], capture_output=True, text=True)
    if added.returncode != 0:
        raise RuntimeError(f"volent tool add: {added.stderr.strip()}")
    return added.stdout.split()[1]


def policy_result(i):
    """What refund_policy answers for run i's input (examples/tools/refund_policy.c)."""
    amount = 100 * i
    if i % 2 == 0:
        return {"refundable_cents": amount - amount // 10, "rule": "restocking-fee"}
    return {"refundable_cents": amount, "rule": "full"}


def model_of(i, mock):
    """Half the agents speak the Anthropic Messages API to the mock, half
    OpenAI Chat Completions."""
    base = f"http://127.0.0.1:{mock.port}"
    if i % 2:
        return {"provider": "anthropic", "name": "mock-claude", "endpoint": base, "capability": "model.mock"}
    return {"provider": "openai-compatible", "name": "mock-gpt", "endpoint": base + "/v1", "capability": "model.mock"}


def manifest(i, port, mock, policy=None):
    """Agent i; with `policy` (the sealed tool's sha256:HEX) it also has the wasm tool `policy`, last."""
    name = agent_name(i)
    sealed = [{"name": "policy", "description": "The refundable amount (a sealed wasm tool).", "kind": "wasm",
               "component": policy, "limits": {"memory_mb": 32, "fuel": 100000000, "time_ms": 20000}}]
    return {
        "apiVersion": "volent/v1",
        "kind": "Agent",
        "metadata": {"name": name, "labels": {"test": "chaos"}},
        "spec": {
            "instructions": "Call every tool once, in order, with the run's input.",
            "model": model_of(i, mock),
            "tools": [{
                "name": tool_name(n),
                "description": f"Side effect {n} of {name}.",
                "kind": "http",
                "capability": "chaos.receiver",
                "http": {"method": "POST", "url": f"http://127.0.0.1:{port}/effect/{name}/{n}"},
                "limits": {"time_ms": 10000},
            } for n in range(1, STEPS + 1)] + (sealed if policy else []),
        },
    }


class Skip(Exception):
    pass


class Abort(Exception):
    """The point cannot be tested (the node refuses the workload): reason, node."""


# --- driving the node ------------------------------------------------------------------------------
def apply_missing(node, manifests):
    """Applies every agent the node does not have (all of them on a fresh
    data folder). '' if done, else what went wrong (the node may have died)."""
    s, body = node.request("GET", "/v1/agents?limit=1000")
    if s != 200:
        return f"GET /v1/agents: HTTP {s}"
    have = {a["name"] for a in body.get("agents", [])}
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=20)
    try:
        for m in manifests:
            if m["metadata"]["name"] in have:
                continue
            s, body = node.request("POST", "/v1/agents", m, conn=conn)
            if s not in (200, 201):
                return f"POST /v1/agents ({m['metadata']['name']}): HTTP {s} {json.dumps(body)[:300]}"
    finally:
        conn.close()
    return ""


def post_runs(node, workers=4):
    """POSTs every run (same ids each time). Stops quietly when the node dies.
    Returns {run index: HTTP status} for the runs answered."""
    answered, lock = {}, threading.Lock()
    todo = list(range(1, AGENTS + 1))

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=20)
        while True:
            with lock:
                if not todo:
                    break
                i = todo.pop(0)
            for attempt in range(3):
                s, body = node.request("POST", f"/v1/agents/{agent_name(i)}/runs",
                                       {"id": run_id(i), "input": {"agent": agent_name(i), "run": run_id(i),
                                                                   "amount_cents": 100 * i, "days_since_delivery": 3,
                                                                   "opened": i % 2 == 0}},
                                       conn=conn)
                if s:
                    with lock:
                        answered[i] = (s, body)
                    break
                conn.close()
                if not node.alive():
                    conn.close()
                    return
                time.sleep(0.1)
                conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=20)
        conn.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answered


def bounded(timeout):
    """`timeout`, cut to what is left of the whole run's budget (at least 5 s)."""
    return max(5, min(timeout, BUDGET - (time.monotonic() - T0)))


def wait_death(node, timeout):
    timeout = bounded(timeout)
    try:
        node.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def list_runs(node):
    s, body = node.request("GET", "/v1/runs?limit=1000")
    if s != 200 or not isinstance(body, dict):
        return None
    return {(r.get("agent"), r.get("id")): r for r in body.get("runs", [])}


def wait_finished(node, timeout):
    """Waits until every run is finished or failed. (ok, summary)."""
    timeout = bounded(timeout)
    deadline = time.monotonic() + timeout
    runs = None
    while time.monotonic() < deadline:
        if not node.alive():
            return False, f"the node died while the runs finished: {how_ended(node.proc.returncode)}: {node.tail()}"
        runs = list_runs(node)
        if runs is not None:
            mine = [runs.get((agent_name(i), run_id(i))) for i in range(1, AGENTS + 1)]
            if all(r and r.get("status") in ("finished", "failed") for r in mine):
                failed = [r for r in mine if r["status"] == "failed"]
                if failed:
                    return False, f"{len(failed)} runs failed: " + "; ".join(
                        f"{r['agent']}/{r['id']}: {r.get('error', '')}" for r in failed[:5])
                return True, ""
        time.sleep(0.25)
    if runs is None:
        return False, f"GET /v1/runs did not answer within {timeout:.0f} s"
    counts, stuck = {}, []
    for i in range(1, AGENTS + 1):
        r = runs.get((agent_name(i), run_id(i)))
        status = r.get("status") if r else "absent"
        counts[status] = counts.get(status, 0) + 1
        if status not in ("finished",) and len(stuck) < 10:
            stuck.append(f"{agent_name(i)}/{run_id(i)}: {status}, steps_done {r.get('steps_done') if r else '-'}"
                         + (f", error {r.get('error')}" if r and r.get("error") else ""))
    return False, (f"not every run finished within {timeout:.0f} s: "
                   + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + "; " + "; ".join(stuck))


def journal_entries(node):
    """Every entry of the journal, all pages; None if it could not be read."""
    entries, after = [], 0
    while True:
        s, body = node.request("GET", f"/v1/journal?after={after}&limit=1000")
        if s != 200 or not isinstance(body, dict):
            return None
        entries += body.get("entries", [])
        nxt = body.get("next")
        if nxt is None:
            return entries
        if not isinstance(nxt, int) or nxt <= after:
            return None
        after = nxt


def replay_budget(data):
    """How many steps the unfinished runs in the journal left by a crash will
    replay: tool completions (and all completions) of runs with a
    run-started entry and no run-finished one. Read from a copy of the
    files, so the node's own folder is not touched."""
    copy = os.path.join(data, "..", "journal-copy")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for suffix in ("", "-wal", "-shm"):
        src = os.path.join(data, "journal.db" + suffix)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(copy, "journal.db" + suffix))
    db = sqlite3.connect(os.path.join(copy, "journal.db"))
    try:
        rows = db.execute("SELECT kind, agent, run_id, payload FROM entries").fetchall()
    finally:
        db.close()
    started = {(a, r) for k, a, r, p in rows if k == "run-started"}
    finished = {(a, r) for k, a, r, p in rows if k == "run-finished"}
    open_runs = started - finished
    tools = every = 0
    for k, a, r, p in rows:
        if k == "completion" and (a, r) in open_runs:
            every += 1
            try:
                tools += json.loads(p).get("type") == "tool"
            except ValueError:
                pass
    return len(open_runs), tools, every


# --- one kill point ----------------------------------------------------------------------------------
def crash_count(point):
    """The N of POINT:N: mid-way through the test's work."""
    effects = AGENTS * STEPS
    if point == "mid-commit":
        # A run writes 4 * STEPS + 4 entries: run-started, run-finished, an
        # intent and a completion per model turn (STEPS + 1) and per tool.
        return max(1, (AGENTS * (4 * STEPS + 4) * 3) // 8)
    return max(1, (effects * 3) // 8)  # ~150 of 400 tool effects


def scenario(point):
    folder = os.path.join(WORK, point)
    data = os.path.join(folder, "data")
    os.makedirs(folder)
    t0 = time.monotonic()
    fails, deaths, number = [], [], 0
    receiver = Receiver(folder)
    mock = MockModel(folder)
    config = os.path.join(folder, "volent.yaml")
    with open(config, "w") as f:
        f.write(config_yaml(receiver.port, mock))
    policy = add_sealed_tool(config, data) if SEALED else None
    manifests = [manifest(i, receiver.port, mock, policy) for i in range(1, AGENTS + 1)]
    first = "after-effect" if point == "replay" else point
    crashes = [f"{first}:{crash_count(first)}"]
    node = None
    try:
        # Phase 1 (and 2 for replay): a node that must die at its crash point.
        while crashes:
            crash = crashes.pop(0)
            number += 1
            node = Node(folder, config, data, number, crash)
            if node.port is not None:
                if number == 1:
                    s, body = node.request("GET", "/v1/runs?limit=1")
                    if s == 501:
                        raise Skip("this volent node does not run agents yet (GET /v1/runs answers 501)")
                why = apply_missing(node, manifests)
                if why and node.survives():
                    raise Abort(f"with {crash}: {why}", node)
                answered = post_runs(node) if node.alive() else {}
                refused = {i: a for i, a in answered.items() if a[0] not in (200, 201)}
                if refused and node.survives():
                    # Not a crash: the node refuses runs. Waiting for a death
                    # that cannot come would only burn the time budget.
                    i, (s, body) = sorted(refused.items())[0]
                    raise Abort(f"with {crash}: {len(refused)} runs refused, e.g. POST /v1/agents/{agent_name(i)}/runs: "
                                f"HTTP {s} {json.dumps(body)[:300]}", node)
            limit = bounded(TIMEOUT)
            if not wait_death(node, limit):
                fails.append(f"harness: the node did not die at {crash} within {limit:.0f} s "
                             f"(stopped with SIGTERM: {how_ended(node.stop(timeout=20))})")
                deaths.append(f"not at {crash}")
                break
            rc = node.stop()
            at = node.died_at()
            want = crash.replace(":", " #")
            if rc != -signal.SIGKILL or at != want:
                fails.append(f"with {crash}: the node ended by {how_ended(rc)}, "
                             f"crash point reported: {at or 'none'}: {node.tail()}")
            deaths.append(f"{how_ended(rc)} at {at or '?'}")
            if point == "replay" and number == 1:
                open_runs, tools, every = replay_budget(data)
                if every == 0:
                    fails.append(f"harness: after {crash}, no unfinished run has a step to replay "
                                 f"({open_runs} unfinished runs)")
                    break
                # Every step recorded done in an unfinished run is replayed
                # once when the run resumes: die half-way through them.
                crashes.append(f"replay:{max(1, every // 2)}")
        # Final phase: restart clean, re-POST every run, wait for all of them.
        number += 1
        node = Node(folder, config, data, number)
        if node.port is None:
            fails.append(f"the node did not start after the crash: {how_ended(node.proc.returncode)}: {node.tail()}")
            return report(point, None, receiver, mock, fails, deaths, {}, t0)
        why = apply_missing(node, manifests)
        if why:
            fails.append(f"after the restart: {why}")
        answered = post_runs(node)
        statuses = {}
        for i, (s, body) in answered.items():
            statuses[s] = statuses.get(s, 0) + 1
        bad = {s: n for s, n in statuses.items() if s not in (200, 201)}
        if len(answered) != AGENTS or bad:
            some = [f"{agent_name(i)}: HTTP {s} {json.dumps(b)[:200]}" for i, (s, b) in answered.items()
                    if s not in (200, 201)][:3]
            fails.append(f"re-POST of the runs after the restart: {len(answered)}/{AGENTS} answered, "
                         f"statuses {statuses}; {'; '.join(some)}")
        ok, why = wait_finished(node, TIMEOUT)
        if not ok:
            fails.append(why)
        entries = journal_entries(node) if node.alive() else None
        if entries is None:
            fails.append("GET /v1/journal: could not read every page")
        status = node.stop(timeout=30)
        if status != 0:
            fails.append(f"SIGTERM: the node ended by {how_ended(status)}: {node.tail()}")
        v = subprocess.run([VOLENT, "journal", "verify", "--data-dir", data], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        if v.returncode != 0:
            fails.append(f"volent journal verify: status {v.returncode}: {v.stdout.decode(errors='replace').strip()}")
        return report(point, entries, receiver, mock, fails, deaths,
                      {"new": statuses.get(201, 0), "existing": statuses.get(200, 0)}, t0)
    finally:
        if node is not None:
            node.stop(timeout=20)
        receiver.stop()
        mock.stop()


def report(point, entries, receiver, mock, fails, deaths, reposted, t0):
    expected = {f"/effect/{agent_name(i)}/{n}" for i in range(1, AGENTS + 1) for n in range(1, STEPS + 1)}
    total = len(expected)
    # Completed: tool completions answered 200, one per (agent, tool).
    completed = set()
    extra = []
    sealed = {}  # agent index -> completions of its policy call
    for e in entries or []:
        p = e.get("payload") or {}
        if e.get("kind") != "completion" or not isinstance(p, dict) or p.get("type") != "tool":
            continue
        a = re.fullmatch(r"chaos-(\d+)", str(e.get("agent", "")))
        if SEALED and p.get("tool") == "policy" and a and e.get("run") == run_id(int(a.group(1))):
            sealed.setdefault(int(a.group(1)), []).append(p)
            continue
        m = re.fullmatch(r"effect_(\d+)", str(p.get("tool", "")))
        effect = f"/effect/{e.get('agent')}/{m.group(1)}" if m else None
        a = re.fullmatch(r"chaos-(\d+)", str(e.get("agent", "")))
        own_run = a is not None and e.get("run") == run_id(int(a.group(1)))
        if p.get("outcome") != "answered" or p.get("status") != 200 or effect not in expected or not own_run:
            extra.append(f"{e.get('key')}: {json.dumps(p)[:200]}")
            continue
        if effect in completed:
            extra.append(f"{e.get('key')}: a second completion for {effect}")
        completed.add(effect)
    if extra:
        fails.append(f"{len(extra)} unexpected tool completions in the journal: {'; '.join(extra[:3])}")
    st = receiver.stats()
    applied = {path for path, n in st["effects"].items() if n >= 1}
    duplicated = st["duplicated_effects"]
    lost = len(expected - applied)
    stray = sorted(applied - expected)
    if stray:
        fails.append(f"the receiver got effects nobody asked for: {stray[:5]}")
    if st["unkeyed"]:
        fails.append(f"{st['unkeyed']} deliveries without Idempotency-Key")
    if st["keys_moved"]:
        fails.append(f"keys re-delivered to another effect: {st['keys_moved'][:5]}")
    if st["bodies_changed"]:
        fails.append(f"keys re-delivered with another body: {st['bodies_changed'][:5]}")
    if st["duplicated"]:
        fails.append(f"applied more than once: {dict(list(st['duplicated'].items())[:5])}")
    if lost:
        fails.append(f"never applied: {sorted(expected - applied)[:5]}")
    if point in ("after-effect", "replay") and deaths[:1] and deaths[0].startswith("SIGKILL") \
            and not st["redelivered_keys"]:
        # The effect the node died after was applied but its completion was
        # not journaled: the restart cannot know it happened and must
        # re-issue it. No re-delivery at all means it guessed instead.
        fails.append("no key was delivered twice: the effect interrupted at after-effect was not re-issued")
    print(f"chaos: {point}: {len(completed)}/{total} completed, {duplicated} duplicated, {lost} lost")
    if SEALED:
        right = [i for i, ps in sealed.items() if len(ps) == 1 and ps[0].get("outcome") == "answered"
                 and ps[0].get("result") == policy_result(i) and "receipt" in ps[0]]
        twice = [i for i, ps in sealed.items() if len(ps) > 1]
        wrong = [f"{agent_name(i)}: {json.dumps(ps[0])[:200]}" for i, ps in sealed.items()
                 if len(ps) == 1 and i not in right]
        print(f"  sealed tool calls: {len(right)}/{AGENTS} answered once with the module's result and a receipt")
        if twice:
            fails.append(f"{len(twice)} sealed tool calls completed more than once: {twice[:5]}")
        if wrong:
            fails.append(f"{len(wrong)} sealed tool calls went wrong: {'; '.join(wrong[:3])}")
        if len(sealed) != AGENTS:
            fails.append(f"{AGENTS - len(sealed)} sealed tool calls never completed")
    rekeys = st["redelivered_keys"]
    dedup = "the receiver ignored the key: applied again" if IGNORE_KEY else "deduplicated by the receiver"
    print(f"  re-delivered: {rekeys} key{'s' if rekeys != 1 else ''} ({st['redeliveries']} extra deliver{'ies' if st['redeliveries'] != 1 else 'y'}, "
          f"{dedup}); node died: {', then '.join(deaths) or '-'}; runs re-POSTed: "
          f"{reposted.get('existing', 0)} existing, {reposted.get('new', 0)} new; {time.monotonic() - t0:.1f} s")
    try:
        ms = mock.stats()
    except (OSError, ValueError, http.client.HTTPException):
        ms = {}
    print(f"  model calls at the mock: {ms.get('requests', '?')} ({ms.get('errors', '?')} errors, "
          f"{ms.get('duplicates', '?')} re-issued with the same key)")
    if ms.get("errors"):
        fails.append(f"the mock model answered {ms['errors']} calls with an error (see mock-model.stderr)")
    for f in fails:
        print(f"  FAIL: {f}")
    perfect = not fails and len(completed) == total and duplicated == 0 and lost == 0
    with open(os.path.join(WORK, point, "receiver-stats.json"), "w") as f:
        json.dump(st, f, indent=1)
    return perfect


# --- main --------------------------------------------------------------------------------------------
results = {}
try:
    for point in POINTS:
        try:
            results[point] = scenario(point)
        except Skip:
            raise
        except Abort as e:
            reason, node = e.args
            print(f"chaos: {point}: FAILED: {reason}")
            print(f"  node stderr: {node.tail()}")
            results[point] = False
        except Exception as e:  # a harness error: report it, go on with the next point
            print(f"chaos: {point}: FAILED: harness error: {type(e).__name__}: {e}")
            results[point] = False
except Skip as e:
    print(f"skipped: {e}")
    sys.exit(0)
bad = [p for p, ok in results.items() if not ok]
print(f"chaos: {len(results) - len(bad)}/{len(results)} kill points perfect"
      + (f"; failed: {' '.join(bad)}" if bad else "") + f" ({time.monotonic() - T0:.0f} s)")
sys.exit(1 if bad else 0)
