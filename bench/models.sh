#!/usr/bin/env bash
# The model-call benchmark (docs/models.md): 1,500 model calls in flight at once
# through the node's egress gate against the mock model, on this machine,
# beside the same calls made by a plain client (Node's http) in the same run.
#
#   bash bench/models.sh [--build DIR | --volent BIN] [--quick]
#
# One node run:
#   1. starts `volent mock-model` with a latency (default 5,000 ms), so that
#      calls overlap: an answer is held that long on a timer;
#   2. starts `volent node` with an allowlist entry naming the mock's address
#      (capability model.mock, cidr 127.0.0.1/32, its port, POST) and a key
#      file, and applies one agent whose model is the mock
#      (openai-compatible) and which has no tools: each run is one model call,
#      then the mock's final answer;
#   3. starts N runs (default 1,500) through the control API (32 client
#      threads, one run each request), and waits until every run has ended;
#   4. counts: completed = runs finished; refused = runs failed or ended any
#      other way, plus calls the mock answered with an error; duplicated =
#      calls the mock saw again under an Idempotency-Key it had seen
#      (GET /stats). In flight = the mock's peak of calls received and not
#      yet answered. Then the node's peak memory (VmHWM) and CPU time
#      (user + system, all threads) from /proc before it is stopped.
# One peer run: a fresh mock, and `node bench/models_peer.mjs`: the same N
# calls sent at once straight to the mock by Node's http client (no gate, no
# journal, no agent loop); its peak memory and CPU time.
# Node and peer runs alternate; each figure is the median of
# MODELS_BENCH_RUNS runs with its spread (max - min) / median, and a spread
# over 10% is flagged as not trustworthy yet. The node does more than the
# peer for each call (four journal entries with an fsync each, the agent
# loop, the gate's checks): the ratio is what that costs, not a like-for-like
# client race.
#
# Ends with `models: completed/refused/duplicated C/R/D` (the median run's
# counts; exit 1 unless every node run had N/0/0 and N calls in flight at
# once). --quick (or MODELS_BENCH_QUICK=1): 100 calls, 1,000 ms latency, one
# run: a smoke run of the script, not figures to quote.
#
# Environment:
#   MODELS_BENCH_CALLS       calls (default 1500)
#   MODELS_BENCH_LATENCY_MS  the mock's latency (default 5000)
#   MODELS_BENCH_RUNS        runs of each side (default 3)
#   VOLENT                   the volent binary (default build/bin/volent; --build
#                            DIR means DIR/bin/volent)
# Needs: python3; node (Debian nodejs) for the peer (skipped, with a line
# saying so, when missing).
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
VOLENT="${VOLENT:-$ROOT/build/bin/volent}"
QUICK="${MODELS_BENCH_QUICK:-0}"

die() { printf 'models: %s\n' "$*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --volent) VOLENT="${2:-}"; shift 2 || die "--volent needs a path" ;;
    --build) VOLENT="${2:-}/bin/volent"; shift 2 || die "--build needs a folder" ;;
    --quick) QUICK=1; shift ;;
    *) die "usage: bash bench/models.sh [--build DIR | --volent BIN] [--quick]" ;;
  esac
done
[[ -x "$VOLENT" ]] || die "$VOLENT is not built (ninja -C build volent, or --volent BIN)"
command -v python3 >/dev/null || die "python3 is not installed"

if [[ "$QUICK" == 1 ]]; then
  CALLS=100 LATENCY=1000 RUNS=1
else
  CALLS="${MODELS_BENCH_CALLS:-1500}" LATENCY="${MODELS_BENCH_LATENCY_MS:-5000}" RUNS="${MODELS_BENCH_RUNS:-3}"
fi

WORK="$(mktemp -d /tmp/volent-models-bench-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

python3 - "$ROOT" "$VOLENT" "$WORK" "$CALLS" "$LATENCY" "$RUNS" <<'PY'
import atexit, http.client, json, os, re, shutil, signal, statistics, subprocess, sys, threading, time

root, volent, work, calls, latency, runs = sys.argv[1:]
calls, latency, runs = int(calls), int(latency), int(runs)
sys.stdout.reconfigure(line_buffering=True)
SPREAD_LIMIT = 0.10
LISTEN_RE = re.compile(r"listening on http://([0-9.]+):([0-9]+)")
TICK = os.sysconf("SC_CLK_TCK")
children = []


def stop_all():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()


atexit.register(stop_all)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


def spawn(argv, stderr_path):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(stderr_path, "wb"))
    children.append(p)
    return p


def listening_port(p, stderr_path, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(stderr_path, errors="replace") as f:
            m = LISTEN_RE.search(f.read())
        if m:
            return int(m.group(2))
        if p.poll() is not None:
            break
        time.sleep(0.02)
    with open(stderr_path, errors="replace") as f:
        sys.exit(f"models: {what} did not start: {f.read()[-600:]}")


def request(port, method, path, body=None, conn=None, timeout=60):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    c.request(method, path, body=None if body is None else json.dumps(body).encode(), headers=headers)
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    return r.status, (json.loads(data) if data else None)


def start_mock(tag):
    err = os.path.join(work, f"mock.{tag}.stderr")
    p = spawn([volent, "mock-model", "--listen", "127.0.0.1:0", "--latency-ms", str(latency),
               "--max-connections", str(max(10000, calls * 2))], err)
    return p, listening_port(p, err, "volent mock-model")


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def proc_usage(pid):
    """(peak resident MB, CPU seconds) of a live process."""
    with open(f"/proc/{pid}/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return hwm / 1024, (int(fields[11]) + int(fields[12])) / TICK


def parallel(items, worker, threads=32):
    """Calls worker(conn_factory_result, item) over `threads` threads; returns results in order."""
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


def node_run(number):
    mock, mock_port = start_mock(f"node{number}")
    data = os.path.join(work, f"data{number}")
    key = os.path.join(work, "model.key")
    with open(key, "w") as f:
        f.write("bench-key\n")
    os.chmod(key, 0o600)
    config = os.path.join(work, f"volent{number}.yaml")
    with open(config, "w") as f:
        f.write(f"""apiVersion: volent/v1
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
""")
    err = os.path.join(work, f"node{number}.stderr")
    node = spawn([volent, "node", "--config", config, "--listen", "127.0.0.1:0"], err)
    port = listening_port(node, err, "volent node")
    manifest = {"apiVersion": "volent/v1", "kind": "Agent", "metadata": {"name": "bench"},
                "spec": {"model": {"provider": "openai-compatible", "name": "mock-1",
                                   "endpoint": f"http://127.0.0.1:{mock_port}/v1", "capability": "model.mock"}}}
    s, b = request(port, "POST", "/v1/agents", manifest)
    if s not in (200, 201):
        sys.exit(f"models: applying the agent failed: HTTP {s} {json.dumps(b)[:400]}")

    ids = [f"run-{i:05d}" for i in range(1, calls + 1)]
    t0 = time.monotonic()

    def start(run_id, conn):
        conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            s, _ = request(port, "POST", "/v1/agents/bench/runs", {"id": run_id, "input": {"run": run_id}}, conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            return 0, None
        return s, conn

    started = parallel(ids, start)
    posted = time.monotonic() - t0
    not_started = sum(1 for s in started if s not in (200, 201))

    def status(run_id, conn):
        conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            s, b = request(port, "GET", f"/v1/agents/bench/runs/{run_id}", None, conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            return "unreachable", None
        if (b or {}).get("status") == "failed":
            errors.setdefault("first", b.get("error", ""))
        return (b or {}).get("status", f"HTTP {s}"), conn

    errors = {}
    deadline = time.monotonic() + latency / 1000 * 4 + 120
    pending = list(ids)
    final = {}
    while pending and time.monotonic() < deadline:
        time.sleep(0.5)
        _, stats = request(mock_port, "GET", "/stats")
        if stats["in_flight"] > 0:
            continue
        answers = parallel(pending, status)
        for run_id, st in zip(pending, answers):
            if st in ("finished", "failed"):  # "running", "waiting-approval": not yet
                final[run_id] = st
        pending = [r for r in pending if r not in final]
    elapsed = time.monotonic() - t0
    peak_mb, cpu_s = proc_usage(node.pid)
    _, stats = request(mock_port, "GET", "/stats")
    stop(node)
    stop(mock)
    shutil.rmtree(data, ignore_errors=True)
    finished = sum(1 for st in final.values() if st == "finished")
    refused = (calls - finished) + stats["errors"]
    return {"completed": finished, "refused": refused, "duplicated": stats["duplicates"],
            "in_flight": stats["peak_in_flight"], "requests": stats["requests"], "not_started": not_started,
            "peak_mb": peak_mb, "cpu_s": cpu_s, "seconds": elapsed, "post_seconds": posted,
            "other": sorted({st for st in final.values() if st != "finished"}) + (["unended"] if pending else []),
            "error": errors.get("first", "")}


def peer_run(number):
    if not shutil.which("node"):
        return None
    mock, mock_port = start_mock(f"peer{number}")
    out = subprocess.run(["node", os.path.join(root, "bench/models_peer.mjs"), str(mock_port), str(calls)],
                         capture_output=True, text=True, timeout=latency / 1000 * 4 + 300)
    _, stats = request(mock_port, "GET", "/stats")
    stop(mock)
    if out.returncode != 0:
        sys.exit(f"models: the peer failed: {out.stderr[-600:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["in_flight"] = stats["peak_in_flight"]
    r["duplicated"] = stats["duplicates"]
    return r


def summary(values):
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med if med else 0.0
    flag = "" if spread <= SPREAD_LIMIT else "  (spread over 10%: not trustworthy yet)"
    return med, spread, flag


print(f"machine: {os.cpu_count()} cores; {calls} calls, mock latency {latency} ms, {runs} run(s) of each side")
node_results, peer_results = [], []
for n in range(1, runs + 1):
    r = node_run(n)
    node_results.append(r)
    print(f"node run {n}: completed/refused/duplicated {r['completed']}/{r['refused']}/{r['duplicated']}, "
          f"peak in flight {r['in_flight']}, {r['requests']} calls seen by the mock, "
          f"peak memory {r['peak_mb']:.1f} MB, CPU {r['cpu_s']:.2f} s, all ended in {r['seconds']:.1f} s "
          f"(runs posted in {r['post_seconds']:.1f} s)"
          + (f"; other endings: {', '.join(r['other'])}" if r["other"] else "")
          + (f"; {r['not_started']} run starts refused" if r["not_started"] else "")
          + (f"; a failed run says: {r['error'][:300]}" if r["error"] else ""))
    p = peer_run(n)
    if p is None:
        if n == 1:
            print("peer: skipped: `node` (Debian nodejs) is not installed")
        continue
    peer_results.append(p)
    print(f"peer run {n}: completed {p['completed']}, failed {p['failed']}, peak in flight {p['in_flight']}, "
          f"peak memory {p['peak_rss_mb']:.1f} MB, CPU {p['cpu_s']:.2f} s, all ended in {p['seconds']:.1f} s")

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

ok = all(r["completed"] == calls and r["refused"] == 0 and r["duplicated"] == 0 and r["in_flight"] >= calls
         for r in node_results)
mid = sorted(node_results, key=lambda r: r["cpu_s"])[len(node_results) // 2]
print(f"models: completed/refused/duplicated {mid['completed']}/{mid['refused']}/{mid['duplicated']}, "
      f"{mid['in_flight']} in flight at once")
if not ok:
    print(f"models: FAIL: the bar is {calls}/0/0 with {calls} calls in flight at once in every run")
sys.exit(0 if ok else 1)
PY
