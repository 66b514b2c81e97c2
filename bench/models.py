#!/usr/bin/env python3
"""The model-call benchmark (docs/models.md): 1,500 model calls in flight at
once through the node's egress gate against the mock model, on this machine,
beside the same calls made by a plain client (Node's http) in the same run.

    bash bench/models.sh [--build DIR | --volent BIN] [--quick]
    python3 bench/models.py [--build DIR | --volent BIN] [--quick]

(bench/models.sh runs this file from the repository root, so a relative DIR
or BIN is read from there.)

One node run:
  1. starts `volent mock-model` with a latency (default 5,000 ms), so that
     calls overlap: an answer is held that long on a timer;
  2. starts `volent node` with an allowlist entry naming the mock's address
     (capability model.mock, cidr 127.0.0.1/32, its port, POST) and a key
     file, and applies one agent whose model is the mock
     (openai-compatible) and which has no tools: each run is one model call,
     then the mock's final answer;
  3. starts N runs (default 1,500) through the control API (32 client
     threads, one run each request), and waits until every run has ended;
  4. counts: completed = runs finished; refused = runs failed or ended any
     other way, plus calls the mock answered with an error; duplicated =
     calls the mock saw again under an Idempotency-Key it had seen
     (GET /stats). In flight = the mock's peak of calls received and not
     yet answered. Then the node's peak memory (VmHWM) and CPU time
     (user + system, all threads) from /proc before it is stopped.
One peer run: a fresh mock, and `node bench/models_peer.mjs`: the same N
calls sent at once straight to the mock by Node's http client (no gate, no
journal, no agent loop); its peak memory and CPU time.
Node and peer runs alternate; each figure is the median of
MODELS_BENCH_RUNS runs with its spread (max - min) / median, and a spread
over 10% is flagged as not trustworthy yet. The node does more than the
peer for each call (four journal entries with an fsync each, the agent
loop, the gate's checks): the ratio is what that costs, not a like-for-like
client race.

Ends with `models: completed/refused/duplicated C/R/D` (the median run's
counts; exit 1 unless every node run had N/0/0 and N calls in flight at
once; 2 on a usage error). --quick (or MODELS_BENCH_QUICK=1): 100 calls,
1,000 ms latency, one run: a smoke run of the script, not figures to quote.

Environment:
  MODELS_BENCH_CALLS       calls (default 1500)
  MODELS_BENCH_LATENCY_MS  the mock's latency (default 5000)
  MODELS_BENCH_RUNS        runs of each side (default 3)
  VOLENT                   the volent binary (default build/bin/volent; --build
                           DIR means DIR/bin/volent)
Needs: python3; node (Debian nodejs) for the peer (skipped, with a line
saying so, when missing). The servers are started and stopped with
tests/harness/ (every one is stopped on exit, also on SIGINT/SIGTERM, and
dies with this program if it is killed).
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from bench_options import Usage, volent_and_quick  # noqa: E402
from harness.cleanup import die_with_parent, work_folder  # noqa: E402
from harness.http_client import json_body, request  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, NotListening, Server  # noqa: E402

USAGE = "usage: bash bench/models.sh [--build DIR | --volent BIN] [--quick]"
USAGE_ERRORS = Usage("models", USAGE)
SPREAD_LIMIT = 0.10  # (max - min) / median above this: not trustworthy yet
TICK = os.sysconf("SC_CLK_TCK")
THREADS = 32  # client threads posting runs and asking for their status
NODE_CONFIG = """apiVersion: volent/v1
kind: NodeConfig
data_dir: {data}
egress:
  allow:
    - capability: model.mock
      scheme: http
      cidr: 127.0.0.1/32
      port: {mock_port}
      methods: [POST]
model_keys:
  - capability: model.mock
    key_file: {key}
"""


# --- options --------------------------------------------------------------------------





class Options:
    """The command line and the environment, checked."""

    def __init__(self, argv):
        self.volent, self.quick = volent_and_quick(argv, ROOT, "MODELS_BENCH_QUICK", USAGE_ERRORS)
        if self.quick:
            self.calls, self.latency, self.runs = 100, 1000, 1
        else:
            self.calls = USAGE_ERRORS.env_int("MODELS_BENCH_CALLS", 1500)
            self.latency = USAGE_ERRORS.env_int("MODELS_BENCH_LATENCY_MS", 5000)
            self.runs = USAGE_ERRORS.env_int("MODELS_BENCH_RUNS", 3)


# --- processes and requests -----------------------------------------------------------

def start(argv, stderr_path, listening, what):
    """A server started with the harness, once it printed its listening line."""
    try:
        return Server(argv, stderr_path, listening, stdout_too=False)
    except NotListening as e:
        sys.exit(f"models: {what} did not start: {e}")


def start_mock(options, work, tag):
    return start([options.volent, "mock-model", "--listen", "127.0.0.1:0", "--latency-ms", str(options.latency),
                  "--max-connections", str(max(10000, options.calls * 2))],
                 os.path.join(work, f"mock.{tag}.stderr"), VOLENT_MOCK_MODEL, "volent mock-model")


def call(port, method, path, body=None, conn=None):
    """(status, parsed JSON body or None); `conn` is a kept-alive connection."""
    status, _, payload = request("127.0.0.1", port, method, path, body, conn=conn, timeout=60)
    return status, json_body(payload) if payload else None


def connection(conn, port):
    return conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)


def proc_usage(pid):
    """(peak resident MB, CPU seconds) of a live process."""
    with open(f"/proc/{pid}/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return hwm / 1024, (int(fields[11]) + int(fields[12])) / TICK


def parallel(items, worker, threads=THREADS):
    """Calls worker(item, conn) -> (result, conn) over `threads` threads, each
    keeping its connection from one item to the next; the results in order."""
    results = [None] * len(items)
    lock = threading.Lock()
    next_index = [0]

    def loop():
        conn = None
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(items):
                break
            results[i], conn = worker(items[i], conn)

    ts = [threading.Thread(target=loop) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return results


# --- the node -------------------------------------------------------------------------

def start_node(work, options, number, mock_port):
    """`volent node` allowed to call the mock, with its key file and a fresh
    data folder; (server, data folder)."""
    data = os.path.join(work, f"data{number}")
    key = os.path.join(work, "model.key")
    with open(key, "w") as f:
        f.write("bench-key\n")
    os.chmod(key, 0o600)
    config = os.path.join(work, f"volent{number}.yaml")
    with open(config, "w") as f:
        f.write(NODE_CONFIG.format(data=data, mock_port=mock_port, key=key))
    node = start([options.volent, "node", "--config", config, "--listen", "127.0.0.1:0"],
                 os.path.join(work, f"node{number}.stderr"), VOLENT_NODE, "volent node")
    return node, data


def apply_agent(port, mock_port):
    """The agent `bench`: its model is the mock, and it has no tools."""
    manifest = {"apiVersion": "volent/v1", "kind": "Agent", "metadata": {"name": "bench"},
                "spec": {"model": {"provider": "openai-compatible", "name": "mock-1",
                                   "endpoint": f"http://127.0.0.1:{mock_port}/v1", "capability": "model.mock"}}}
    s, b = call(port, "POST", "/v1/agents", manifest)
    if s not in (200, 201):
        sys.exit(f"models: applying the agent failed: HTTP {s} {json.dumps(b)[:400]}")


def start_runs(port, ids):
    """POSTs one run per id; the number of runs not started (200 or 201)."""

    def post(run_id, conn):
        conn = connection(conn, port)
        try:
            s, _ = call(port, "POST", "/v1/agents/bench/runs", {"id": run_id, "input": {"run": run_id}}, conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            return 0, None
        return s, conn

    return sum(1 for s in parallel(ids, post) if s not in (200, 201))


def wait_for_runs(options, port, mock_port, ids):
    """Waits (bounded) until the mock holds no call and every run has ended;
    ({run id: "finished" or "failed"}, runs not ended, a failed run's error)."""
    errors = {}

    def status(run_id, conn):
        conn = connection(conn, port)
        try:
            s, b = call(port, "GET", f"/v1/agents/bench/runs/{run_id}", None, conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            return "unreachable", None
        if (b or {}).get("status") == "failed":
            errors.setdefault("first", b.get("error", ""))
        return (b or {}).get("status", f"HTTP {s}"), conn

    deadline = time.monotonic() + options.latency / 1000 * 4 + 120
    pending = list(ids)
    final = {}
    while pending and time.monotonic() < deadline:
        time.sleep(0.5)
        _, stats = call(mock_port, "GET", "/stats")
        if stats["in_flight"] > 0:
            continue
        answers = parallel(pending, status)
        for run_id, st in zip(pending, answers):
            if st in ("finished", "failed"):  # "running", "waiting-approval": not yet
                final[run_id] = st
        pending = [r for r in pending if r not in final]
    return final, pending, errors.get("first", "")


def node_run(options, work, number):
    """One node run (steps 1-4 of the docstring); its counts and figures."""
    mock = start_mock(options, work, f"node{number}")
    node, data = start_node(work, options, number, mock.port)
    apply_agent(node.port, mock.port)

    ids = [f"run-{i:05d}" for i in range(1, options.calls + 1)]
    t0 = time.monotonic()
    not_started = start_runs(node.port, ids)
    posted = time.monotonic() - t0
    final, pending, error = wait_for_runs(options, node.port, mock.port, ids)
    elapsed = time.monotonic() - t0
    peak_mb, cpu_s = proc_usage(node.proc.pid)
    _, stats = call(mock.port, "GET", "/stats")
    node.stop(timeout=60)
    mock.stop(timeout=60)
    shutil.rmtree(data, ignore_errors=True)
    finished = sum(1 for st in final.values() if st == "finished")
    refused = (options.calls - finished) + stats["errors"]
    return {"completed": finished, "refused": refused, "duplicated": stats["duplicates"],
            "in_flight": stats["peak_in_flight"], "requests": stats["requests"], "not_started": not_started,
            "peak_mb": peak_mb, "cpu_s": cpu_s, "seconds": elapsed, "post_seconds": posted,
            "other": sorted({st for st in final.values() if st != "finished"}) + (["unended"] if pending else []),
            "error": error}


# --- the peer -------------------------------------------------------------------------

def peer_run(options, work, number):
    """One peer run, or None without `node`."""
    if not shutil.which("node"):
        return None
    mock = start_mock(options, work, f"peer{number}")
    out = subprocess.run(["node", os.path.join(ROOT, "bench/models_peer.mjs"), str(mock.port), str(options.calls)],
                         capture_output=True, text=True, timeout=options.latency / 1000 * 4 + 300,
                         preexec_fn=die_with_parent)
    _, stats = call(mock.port, "GET", "/stats")
    mock.stop(timeout=60)
    if out.returncode != 0:
        sys.exit(f"models: the peer failed: {out.stderr[-600:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["in_flight"] = stats["peak_in_flight"]
    r["duplicated"] = stats["duplicates"]
    return r


# --- the report -----------------------------------------------------------------------

def summary(values):
    """(median, spread, flag): spread is (max - min) / median; flag is
    non-empty when it is over SPREAD_LIMIT."""
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med if med else 0.0
    flag = "" if spread <= SPREAD_LIMIT else "  (spread over 10%: not trustworthy yet)"
    return med, spread, flag


def print_node_run(n, r):
    print(f"node run {n}: completed/refused/duplicated {r['completed']}/{r['refused']}/{r['duplicated']}, "
          f"peak in flight {r['in_flight']}, {r['requests']} calls seen by the mock, "
          f"peak memory {r['peak_mb']:.1f} MB, CPU {r['cpu_s']:.2f} s, all ended in {r['seconds']:.1f} s "
          f"(runs posted in {r['post_seconds']:.1f} s)"
          + (f"; other endings: {', '.join(r['other'])}" if r["other"] else "")
          + (f"; {r['not_started']} run starts refused" if r["not_started"] else "")
          + (f"; a failed run says: {r['error'][:300]}" if r["error"] else ""))


def print_peer_run(n, p):
    print(f"peer run {n}: completed {p['completed']}, failed {p['failed']}, peak in flight {p['in_flight']}, "
          f"peak memory {p['peak_rss_mb']:.1f} MB, CPU {p['cpu_s']:.2f} s, all ended in {p['seconds']:.1f} s")


def print_table(node_results, peer_results):
    """Median (spread) of each figure for the node and the peer, and node / peer."""
    print()
    print(f"{'figure':34} {'node (median, spread)':>24} {'peer: Node http':>24} {'ratio':>8}")
    for label, nkey, pkey in (("peak memory (MB)", "peak_mb", "peak_rss_mb"), ("CPU time (s)", "cpu_s", "cpu_s"),
                              ("calls in flight at the mock (peak)", "in_flight", "in_flight")):
        nm, ns, nf = summary([r[nkey] for r in node_results])
        cell_n = f"{nm:.2f} ({ns * 100:.0f}%)"
        if peer_results:
            pm, ps, pf = summary([r[pkey] for r in peer_results])
            cell_p, ratio = f"{pm:.2f} ({ps * 100:.0f}%)", f"{nm / pm:.2f}" if pm else "n/a"
        else:
            cell_p, ratio, pf = "n/a", "n/a", ""
        flags = [side for side, f in (("node", nf), ("peer", pf)) if f]
        note = f"  ({' and '.join(flags)} spread over 10%: not trustworthy yet)" if flags else ""
        print(f"{label:34} {cell_n:>24} {cell_p:>24} {ratio:>8}{note}")


def main():
    options = Options(sys.argv[1:])
    sys.stdout.reconfigure(line_buffering=True)
    work = work_folder("volent-models-bench-")
    calls = options.calls
    print(f"machine: {os.cpu_count()} cores; {calls} calls, mock latency {options.latency} ms, "
          f"{options.runs} run(s) of each side")
    node_results, peer_results = [], []
    for n in range(1, options.runs + 1):
        r = node_run(options, work, n)
        node_results.append(r)
        print_node_run(n, r)
        p = peer_run(options, work, n)
        if p is None:
            if n == 1:
                print("peer: skipped: `node` (Debian nodejs) is not installed")
            continue
        peer_results.append(p)
        print_peer_run(n, p)

    print_table(node_results, peer_results)
    ok = all(r["completed"] == calls and r["refused"] == 0 and r["duplicated"] == 0 and r["in_flight"] >= calls
             for r in node_results)
    mid = sorted(node_results, key=lambda r: r["cpu_s"])[len(node_results) // 2]
    print(f"models: completed/refused/duplicated {mid['completed']}/{mid['refused']}/{mid['duplicated']}, "
          f"{mid['in_flight']} in flight at once")
    if not ok:
        print(f"models: FAIL: the bar is {calls}/0/0 with {calls} calls in flight at once in every run")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
