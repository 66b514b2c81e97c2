#!/usr/bin/env bash
# The control API benchmark (docs/operator-guide.md): the memory of `volent node` with idle
# agents, and the latency of its API at 10,000 agents, beside nginx serving
# static JSON files of the same sizes, measured in the same run with the same
# load.
#
#   bash bench/api.sh [--build DIR | --volent BIN] [--quick]
#
# 1. Starts `volent node` (tests/volent/fixtures/volent.yaml, a temporary data
#    folder, a free loopback port) and reads its resident memory (VmRSS of
#    /proc/PID/status, the node and any child) with 0, 1,000 and 10,000 agents
#    applied (python3 http.client over kept-alive connections posting
#    generated manifests: tests/volent/fixtures/agent.yaml renamed), then once
#    more after a restart on the same data folder (the agents loaded from
#    disk, nothing else done). The bar: 10,000 agents in at most 40 MB.
# 2. With 10,000 agents: `wrk --latency` (kept-alive connections over
#    loopback) on GET /v1/agents/{name} and GET /v1/agents?limit=100, and on
#    nginx (Debian nginx-light, started here as a foreground process with its
#    own prefix and configuration on another free port) serving two static
#    files with the node's two answers, byte for byte. Runs are interleaved
#    (node, nginx, node, nginx...) so a change of machine load hits both.
#    End to end: p50 and p99 from wrk, requests per second. In the handler:
#    volent_http_handler_seconds{route,quantile} from /metrics after each
#    node run (the summary covers the route's last 8,192 requests, all of
#    them from that run).
# Each figure is the median of API_BENCH_RUNS runs with its spread
# (max - min) / median; a spread over 10% is flagged as not trustworthy yet.
# Ratios are node / nginx. Ends with `api p99 in-handler: X us`, the larger
# of the two routes' median p99 in the handler (`n/a` and exit status 1 when
# the node could not be measured).
#
# --quick (or API_BENCH_QUICK=1): 200 agents, one 1 s run per cell; a smoke
# run of the script, not figures to quote.
#
# Environment:
#   API_BENCH_RUNS         runs per cell (default 5, at least 3)
#   API_BENCH_SECONDS      wrk duration of one run (default 5)
#   API_BENCH_CONNECTIONS  wrk connections (default 4; one wrk thread)
#   API_BENCH_AGENTS       agents for the latency phase (default 10000)
#   VOLENT                 the volent binary (default build/bin/volent; --build DIR
#                          means DIR/bin/volent)
# Needs: python3, wrk, nginx (/usr/sbin/nginx).
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
VOLENT="${VOLENT:-$ROOT/build/bin/volent}"
QUICK="${API_BENCH_QUICK:-0}"

die() { printf 'api: %s\n' "$*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --volent) VOLENT="${2:-}"; shift 2 || die "--volent needs a path" ;;
    --build) VOLENT="${2:-}/bin/volent"; shift 2 || die "--build needs a folder" ;;
    --quick) QUICK=1; shift ;;
    *) die "usage: bash bench/api.sh [--build DIR | --volent BIN] [--quick]" ;;
  esac
done
[[ -x "$VOLENT" ]] || die "$VOLENT is not built (ninja -C build volent, or --volent BIN)"
command -v python3 >/dev/null || die "python3 is not installed"
command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[[ -x "$NGINX" ]] || die "nginx is not installed (apt-get install nginx-light)"

if [[ "$QUICK" == 1 ]]; then
  RUNS=1 SECONDS_PER_RUN=1 AGENTS=200
else
  RUNS="${API_BENCH_RUNS:-5}" SECONDS_PER_RUN="${API_BENCH_SECONDS:-5}" AGENTS="${API_BENCH_AGENTS:-10000}"
  ((RUNS >= 3)) || die "API_BENCH_RUNS must be at least 3 (a median and a spread)"
fi
CONNECTIONS="${API_BENCH_CONNECTIONS:-4}"

WORK="$(mktemp -d /tmp/volent-api-bench-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

python3 - "$ROOT" "$VOLENT" "$NGINX" "$WORK" "$QUICK" "$RUNS" "$SECONDS_PER_RUN" "$AGENTS" "$CONNECTIONS" <<'PY'
import atexit, http.client, json, os, re, signal, socket, statistics, subprocess, sys, threading, time

root, volent, nginx, work, quick, runs, seconds, agents, connections = sys.argv[1:]
sys.stdout.reconfigure(line_buffering=True)
quick, runs, seconds, agents, connections = quick == "1", int(runs), int(seconds), int(agents), int(connections)
SPREAD_LIMIT = 0.10
RSS_BAR_MB = 40
CONFIG = os.path.join(root, "tests/volent/fixtures/volent.yaml")
TEMPLATE_FILE = os.path.join(root, "tests/volent/fixtures/agent.yaml")
DATA = os.path.join(work, "data")
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


atexit.register(cleanup)


def die(text):
    print(f"api: {text}", file=sys.stderr)
    print("api p99 in-handler: n/a")
    sys.exit(1)


def start_node():
    err_path = os.path.join(work, f"node.{len(procs)}.err")
    err = open(err_path, "wb")
    p = subprocess.Popen([volent, "node", "--config", CONFIG, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                         stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    err.close()
    procs.append(p)
    for _ in range(600):
        m = re.search(r"^volent node: listening on http://127\.0\.0\.1:(\d+)$", open(err_path).read(), re.M)
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    die("the node did not start: " + open(err_path).read()[-500:])


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def rss_kib(pid):
    """VmRSS of pid and of its children (KiB)."""
    total = 0
    pids = [pid]
    while pids:
        q = pids.pop()
        try:
            status = open(f"/proc/{q}/status").read()
            total += int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
            for task in os.listdir(f"/proc/{q}/task"):
                kids = open(f"/proc/{q}/task/{task}/children").read().split()
                pids += [int(k) for k in kids]
        except (OSError, AttributeError):
            pass
    return total


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def git_head():
    try:
        return subprocess.run(["git", "-C", root, "log", "-1", "--format=%h %cs"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "no git"


def fmt_spread(values):
    m = statistics.median(values)
    s = (max(values) - min(values)) / m if m else 0.0
    flag = "  (over 10%: not trustworthy yet)" if len(values) > 1 and s > SPREAD_LIMIT else ""
    return m, s, flag


# --- memory ------------------------------------------------------------------------
node, port = start_node()
with open("/proc/loadavg") as f:
    load = " ".join(f.read().split()[:3])
print(f"volent: {volent} ({git_head()}); {os.cpu_count()} cores, load average {load}")
print(f"wrk: {subprocess.run(['wrk', '--version'], capture_output=True, text=True).stdout.split(chr(10))[0].split(' Copyright')[0]}; "
      f"nginx: {subprocess.run([nginx, '-v'], capture_output=True, text=True).stderr.strip()}")
if quick:
    print(f"quick run: {agents} agents, one {seconds} s run per cell; not figures to quote")
for _ in range(20):
    get(port, "/healthz")
time.sleep(0.2)
rss0 = rss_kib(node.pid)

# The template's manifest as JSON, from the node itself (no YAML reader here).
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
c.request("POST", "/v1/agents", body=open(TEMPLATE_FILE, "rb").read(), headers={"Content-Type": "application/yaml"})
r = c.getresponse()
first = json.loads(r.read())
if r.status != 201:
    die(f"the agent template was not applied: HTTP {r.status} {first}")
c.request("DELETE", f"/v1/agents/{first['name']}")
c.getresponse().read()
c.close()
TEMPLATE = first["manifest"]


def apply_range(names, workers=4):
    """Applies agents named `names` over `workers` kept-alive connections;
    returns the seconds it took."""
    chunks = [names[i::workers] for i in range(workers)]
    bad = []

    def worker(chunk):
        manifest = json.loads(json.dumps(TEMPLATE))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for name in chunk:
            manifest["metadata"]["name"] = name
            conn.request("POST", "/v1/agents", body=json.dumps(manifest), headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            if r.status not in (200, 201):
                bad.append((name, r.status))
                return
        conn.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(chunk,)) for chunk in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if bad:
        die(f"apply failed: {bad[:3]}")
    return time.perf_counter() - t0


names = [f"agent-{i:05d}" for i in range(agents)]
step = agents // 10 if quick else 1000
t1 = apply_range(names[:step])
time.sleep(0.2)
rss1 = rss_kib(node.pid)
t2 = apply_range(names[step:])
time.sleep(0.2)
rss2 = rss_kib(node.pid)
status, body = get(port, "/healthz")
count = json.loads(body).get("agents")
if count != agents:
    die(f"/healthz says {count} agents, wanted {agents}")
stop(node)
procs.clear()
node, port = start_node()
for _ in range(20):
    get(port, "/healthz")
time.sleep(0.2)
rss_loaded = rss_kib(node.pid)
rate = (agents) / (t1 + t2)

mb = lambda kib: kib / 1024
print()
print(f"memory (VmRSS of the node, MiB):")
print(f"  {0:>6} agents   {mb(rss0):7.1f}")
print(f"  {step:>6} agents   {mb(rss1):7.1f}   (+{(rss1 - rss0) / step:.2f} KiB per agent)")
print(f"  {agents:>6} agents   {mb(rss2):7.1f}   (+{(rss2 - rss0) / agents:.2f} KiB per agent) after applying them")
print(f"  {agents:>6} agents   {mb(rss_loaded):7.1f}   after a restart (loaded from the data folder)")
print(f"  applied at {rate:.0f} agents/s over 4 kept-alive connections (each on disk before its answer)")
worst = max(rss2, rss_loaded)
if not quick:
    verdict = "met" if mb(worst) <= RSS_BAR_MB else "NOT met"
    print(f"rss {agents} agents: {mb(worst):.1f} MiB (bar: {RSS_BAR_MB} MiB total: {verdict})")
else:
    print(f"rss {agents} agents: {mb(worst):.1f} MiB (quick run; the bar is for 10,000)")

# --- latency ----------------------------------------------------------------------------
probe = names[len(names) // 2]
paths = {"get": f"/v1/agents/{probe}", "list": "/v1/agents?limit=100"}
routes = {"get": "/v1/agents/{name}", "list": "/v1/agents"}
static = os.path.join(work, "static")
os.makedirs(static)
sizes = {}
for key, path in paths.items():
    status, body = get(port, path)
    if status != 200:
        die(f"GET {path}: HTTP {status}")
    open(os.path.join(static, f"{key}.json"), "wb").write(body)
    sizes[key] = len(body)

ngx_port = free_port()
prefix = os.path.join(work, "nginx")
os.makedirs(os.path.join(prefix, "logs"))
conf = os.path.join(prefix, "nginx.conf")
open(conf, "w").write(f"""
daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 60s;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  server {{
    listen 127.0.0.1:{ngx_port};
    default_type application/json;
    location = /v1/agents/{probe} {{ alias {static}/get.json; }}
    location = /v1/agents {{ alias {static}/list.json; }}
  }}
}}
""")
ngx = subprocess.Popen([nginx, "-p", prefix, "-c", conf], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=open(os.path.join(prefix, "stderr"), "wb"))
procs.append(ngx)
for _ in range(100):
    try:
        if all(get(ngx_port, p)[1] == open(os.path.join(static, f"{k}.json"), "rb").read() for k, p in paths.items()):
            break
    except OSError:
        pass
    time.sleep(0.05)
else:
    die("nginx did not serve the static answers: " + open(os.path.join(prefix, "stderr")).read()[-300:])

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def wrk(port_, path):
    out = subprocess.run(["wrk", "--latency", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s",
                          f"http://127.0.0.1:{port_}{path}"], capture_output=True, text=True).stdout
    pct = {}
    for q, v, u in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M):
        pct[q] = float(v) * UNITS[u]
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: .*", out)
    if "50" not in pct or "99" not in pct or not rps:
        die(f"wrk output not understood:\n{out}")
    if errors:
        die(f"wrk saw errors on {path}:\n{out}")
    return pct["50"], pct["99"], float(rps.group(1))


def handler_quantiles(route):
    status, body = get(port, "/metrics")
    q = {}
    for line in body.decode().splitlines():
        m = re.match(r'^volent_http_handler_seconds\{(.*)\}\s+(\S+)$', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        if labels.get("route") == route and "quantile" in labels:
            q[labels["quantile"]] = float(m.group(2))
    return q.get("0.5"), q.get("0.99")


# Warm-up, untimed.
for key, path in paths.items():
    subprocess.run(["wrk", "-t1", f"-c{connections}", "-d1s", f"http://127.0.0.1:{port}{path}"], capture_output=True)
    subprocess.run(["wrk", "-t1", f"-c{connections}", "-d1s", f"http://127.0.0.1:{ngx_port}{path}"], capture_output=True)

cells = {(who, key): {"p50": [], "p99": [], "rps": []} for who in ("node", "nginx") for key in paths}
inh = {key: {"p50": [], "p99": []} for key in paths}
for r in range(runs):
    for key, path in paths.items():
        for who, p_ in (("node", port), ("nginx", ngx_port)):
            p50, p99, rps = wrk(p_, path)
            cells[(who, key)]["p50"].append(p50)
            cells[(who, key)]["p99"].append(p99)
            cells[(who, key)]["rps"].append(rps)
            if who == "node":
                h50, h99 = handler_quantiles(routes[key])
                if h50 is None or h99 is None:
                    die(f"/metrics has no volent_http_handler_seconds for route {routes[key]}")
                inh[key]["p50"].append(h50)
                inh[key]["p99"].append(h99)
    print(f"  run {r + 1}/{runs} done", file=sys.stderr)

print()
print(f"latency with {agents} agents: wrk --latency -t1 -c{connections} -d{seconds}s, kept-alive, loopback; "
      f"{runs} run(s) per cell, interleaved; median (spread)")
us = lambda s: s * 1e6
for key, path in paths.items():
    print(f"GET {path}  ({sizes[key]} bytes; nginx serves the same bytes from a file)")
    rows = []
    for who in ("node", "nginx"):
        c_ = cells[(who, key)]
        line = f"  {who:<6} end to end"
        for metric in ("p50", "p99"):
            m, s, flag = fmt_spread(c_[metric])
            line += f"   {metric} {us(m):8.0f} us ({s * 100:4.1f}%){'!' if flag else ''}"
        m, s, flag = fmt_spread(c_["rps"])
        line += f"   {m:9.0f} req/s ({s * 100:4.1f}%){'!' if flag else ''}"
        print(line)
    ratios = []
    for metric in ("p50", "p99"):
        ratios.append(f"{metric} {statistics.median(cells[('node', key)][metric]) / statistics.median(cells[('nginx', key)][metric]):.2f}x")
    ratios.append(f"req/s {statistics.median(cells[('node', key)]['rps']) / statistics.median(cells[('nginx', key)]['rps']):.2f}x")
    print(f"  node / nginx: {', '.join(ratios)}")
    line = "  node   in the handler (volent_http_handler_seconds)"
    for metric in ("p50", "p99"):
        m, s, flag = fmt_spread(inh[key][metric])
        line += f"   {metric} {us(m):7.1f} us ({s * 100:4.1f}%){'!' if flag else ''}"
    print(line)
flagged = any(fmt_spread(v)[2] for c_ in cells.values() for v in c_.values()) or \
    any(fmt_spread(v)[2] for c_ in inh.values() for v in c_.values())
if flagged:
    print("! spread over 10%: not trustworthy yet (a busy machine; run again or raise API_BENCH_RUNS/SECONDS)")
stop(node)
ngx.kill()
ngx.wait()
procs.clear()
worst_p99 = max(statistics.median(inh[k]["p99"]) for k in paths)
print(f"api p99 in-handler: {us(worst_p99):.1f} us")
PY
