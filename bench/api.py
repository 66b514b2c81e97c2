#!/usr/bin/env python3
"""The control API benchmark (docs/operator-guide.md): the memory of `volent
node` with idle agents, and the latency of its API at 10,000 agents, beside
nginx serving static JSON files of the same sizes, measured in the same run
with the same load.

    bash bench/api.sh [--build DIR | --volent BIN] [--quick]
    python3 bench/api.py [--build DIR | --volent BIN] [--quick]

(bench/api.sh runs this file from the repository root, so a relative DIR or
BIN is read from there.)

1. Starts `volent node` (tests/volent/fixtures/volent.yaml, a temporary data
   folder, a free loopback port) and reads its resident memory (VmRSS of
   /proc/PID/status, the node and any child) with 0, 1,000 and 10,000 agents
   applied (http.client over kept-alive connections posting generated
   manifests: tests/volent/fixtures/agent.yaml renamed), then once more
   after a restart on the same data folder (the agents loaded from disk,
   nothing else done). The bar: 10,000 agents in at most 40 MB.
2. With 10,000 agents: `wrk --latency` (kept-alive connections over
   loopback) on GET /v1/agents/{name} and GET /v1/agents?limit=100, and on
   nginx (Debian nginx-light, started here as a foreground process with its
   own prefix and configuration on another free port) serving two static
   files with the node's two answers, byte for byte. Runs are interleaved
   (node, nginx, node, nginx...) so a change of machine load hits both.
   The node is measured twice, each run beside the other: with
   authentication (every wrk request carries the bootstrap admin token,
   the node's default) and without (a second node in development mode,
   control.development_no_auth, on a copy of the same data folder).
   End to end: p50 and p99 from wrk, requests per second. In the handler:
   volent_http_handler_seconds{route,quantile} from /metrics after each
   node run (the summary covers the route's last 8,192 requests, all of
   them from that run).
Each figure is the median of API_BENCH_RUNS runs with its spread
(max - min) / median; a spread over 10% is flagged as not trustworthy yet.
Ratios are node / nginx. Ends with `api p99 in-handler: X us`, the larger
of the two routes' median p99 in the handler (`n/a` and exit status 1 when
the node could not be measured). Exit status 2 on a usage error or a
missing program.

--quick (or API_BENCH_QUICK=1): 200 agents, one 1 s run per cell; a smoke
run of the script, not figures to quote.

Environment:
  API_BENCH_RUNS         runs per cell (default 5, at least 3)
  API_BENCH_SECONDS      wrk duration of one run (default 5)
  API_BENCH_CONNECTIONS  wrk connections (default 4; one wrk thread)
  API_BENCH_AGENTS       agents for the latency phase (default 10000)
  VOLENT                 the volent binary (default build/bin/volent; --build DIR
                         means DIR/bin/volent)
Needs: python3, wrk, nginx (/usr/sbin/nginx). The servers are started and
stopped with tests/harness/ (every one is stopped on exit, also on
SIGINT/SIGTERM, and dies with this program if it is killed).
"""
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from bench_options import Usage, volent_and_quick  # noqa: E402
from harness.cleanup import die_with_parent, forget, kill_at_exit, work_folder  # noqa: E402
from harness.http_client import json_body, request, token_for  # noqa: E402
from harness.servers import VOLENT_NODE, NotListening, Server  # noqa: E402

USAGE = "usage: bash bench/api.sh [--build DIR | --volent BIN] [--quick]"
USAGE_ERRORS = Usage("api", USAGE)
SPREAD_LIMIT = 0.10  # (max - min) / median above this: not trustworthy yet
RSS_BAR_MB = 40
CONFIG = os.path.join(ROOT, "tests/volent/fixtures/volent.yaml")
TEMPLATE_FILE = os.path.join(ROOT, "tests/volent/fixtures/agent.yaml")
UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}
# The two answers measured: the key, the path asked, the route /metrics names.
ROUTES = {"get": "/v1/agents/{name}", "list": "/v1/agents"}


# --- options --------------------------------------------------------------------------



def die(text):
    """The node could not be measured: exit status 1, with the closing line saying so."""
    print(f"api: {text}", file=sys.stderr)
    print("api p99 in-handler: n/a")
    sys.exit(1)




class Options:
    """The command line and the environment, checked."""

    def __init__(self, argv):
        self.volent, self.quick = volent_and_quick(argv, ROOT, "API_BENCH_QUICK", USAGE_ERRORS)
        if not shutil.which("wrk"):
            USAGE_ERRORS.error("wrk is not installed (apt-get install wrk)")
        self.nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(self.nginx, os.X_OK):
            USAGE_ERRORS.error("nginx is not installed (apt-get install nginx-light)")
        if self.quick:
            self.runs, self.seconds, self.agents = 1, 1, 200
        else:
            self.runs = USAGE_ERRORS.env_int("API_BENCH_RUNS", 5)
            self.seconds = USAGE_ERRORS.env_int("API_BENCH_SECONDS", 5)
            self.agents = USAGE_ERRORS.env_int("API_BENCH_AGENTS", 10000)
            if self.runs < 3:
                USAGE_ERRORS.error("API_BENCH_RUNS must be at least 3 (a median and a spread)")
        self.connections = USAGE_ERRORS.env_int("API_BENCH_CONNECTIONS", 4)


# --- processes and requests -----------------------------------------------------------

def start_node(options, work, data, number, config=CONFIG):
    """`volent node` on a free loopback port and the data folder `data`."""
    try:
        return Server([options.volent, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", data],
                      os.path.join(work, f"node.{number}.err"), VOLENT_NODE)
    except NotListening as e:
        die(f"the node did not start: {e}")


def get(port, path):
    """(status, body bytes) of GET path."""
    status, _, body = request("127.0.0.1", port, "GET", path, timeout=30)
    return status, body


def settle(port):
    """A few requests, then a pause, before reading the memory."""
    for _ in range(20):
        get(port, "/healthz")
    time.sleep(0.2)


def rss_kib(pid):
    """VmRSS of pid and of its children (KiB)."""
    total = 0
    pids = [pid]
    while pids:
        q = pids.pop()
        try:
            with open(f"/proc/{q}/status") as f:
                total += int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1))
            for task in os.listdir(f"/proc/{q}/task"):
                with open(f"/proc/{q}/task/{task}/children") as f:
                    pids += [int(k) for k in f.read().split()]
        except (OSError, AttributeError):
            pass
    return total


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_quietly(argv):
    """A short program's output (stdout and stderr as text); it dies with this one."""
    return subprocess.run(argv, capture_output=True, text=True, preexec_fn=die_with_parent)


def git_head():
    try:
        return run_quietly(["git", "-C", ROOT, "log", "-1", "--format=%h %cs"]).stdout.strip()
    except OSError:
        return "no git"


def print_machine(options):
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"volent: {options.volent} ({git_head()}); {os.cpu_count()} cores, load average {load}")
    wrk_version = run_quietly(["wrk", "--version"]).stdout.split("\n")[0].split(" Copyright")[0]
    nginx_version = run_quietly([options.nginx, "-v"]).stderr.strip()
    print(f"wrk: {wrk_version}; nginx: {nginx_version}")
    if options.quick:
        print(f"quick run: {options.agents} agents, one {options.seconds} s run per cell; not figures to quote")


# --- memory ---------------------------------------------------------------------------

def template_manifest(port):
    """The template's manifest as JSON, from the node itself (no YAML reader here):
    applied once, then deleted."""
    with open(TEMPLATE_FILE, "rb") as f:
        yaml = f.read()
    status, _, body = request("127.0.0.1", port, "POST", "/v1/agents", yaml,
                              headers={"Content-Type": "application/yaml"}, timeout=30)
    first = json_body(body)
    if status != 201:
        die(f"the agent template was not applied: HTTP {status} {first if first is not None else body!r}")
    request("127.0.0.1", port, "DELETE", f"/v1/agents/{first['name']}", timeout=30)
    return first["manifest"]


def apply_agents(port, template, names, workers=4):
    """Applies agents named `names` over `workers` kept-alive connections;
    returns the seconds it took."""
    chunks = [names[i::workers] for i in range(workers)]
    bad = []

    def worker(chunk):
        manifest = json.loads(json.dumps(template))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for name in chunk:
            manifest["metadata"]["name"] = name
            status, _, _ = request("127.0.0.1", port, "POST", "/v1/agents", manifest, conn=conn)
            if status not in (200, 201):
                bad.append((name, status))
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


def measure_memory(options, work, data, node, names):
    """Applies the agents in two steps, reading the memory before and after
    each, restarts the node on the same data folder and reads it again;
    prints the figures and returns the restarted node."""
    agents = options.agents
    settle(node.port)
    rss0 = rss_kib(node.proc.pid)
    template = template_manifest(node.port)
    step = agents // 10 if options.quick else 1000
    t1 = apply_agents(node.port, template, names[:step])
    time.sleep(0.2)
    rss1 = rss_kib(node.proc.pid)
    t2 = apply_agents(node.port, template, names[step:])
    time.sleep(0.2)
    rss2 = rss_kib(node.proc.pid)
    _, body = get(node.port, "/healthz")
    count = (json_body(body) or {}).get("agents")
    if count != agents:
        die(f"/healthz says {count} agents, wanted {agents}")
    node.stop()
    node = start_node(options, work, data, 2)
    settle(node.port)
    rss_loaded = rss_kib(node.proc.pid)
    rate = agents / (t1 + t2)

    def mb(kib):
        return kib / 1024

    print()
    print("memory (VmRSS of the node, MiB):")
    print(f"  {0:>6} agents   {mb(rss0):7.1f}")
    print(f"  {step:>6} agents   {mb(rss1):7.1f}   (+{(rss1 - rss0) / step:.2f} KiB per agent)")
    print(f"  {agents:>6} agents   {mb(rss2):7.1f}   (+{(rss2 - rss0) / agents:.2f} KiB per agent) after applying them")
    print(f"  {agents:>6} agents   {mb(rss_loaded):7.1f}   after a restart (loaded from the data folder)")
    print(f"  applied at {rate:.0f} agents/s over 4 kept-alive connections (each on disk before its answer)")
    worst = max(rss2, rss_loaded)
    if not options.quick:
        verdict = "met" if mb(worst) <= RSS_BAR_MB else "NOT met"
        print(f"rss {agents} agents: {mb(worst):.1f} MiB (bar: {RSS_BAR_MB} MiB total: {verdict})")
    else:
        print(f"rss {agents} agents: {mb(worst):.1f} MiB (quick run; the bar is for 10,000)")
    return node


# --- nginx ----------------------------------------------------------------------------

NGINX_CONF = """
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
    listen 127.0.0.1:{port};
    default_type application/json;
    location = /v1/agents/{probe} {{ alias {static}/get.json; }}
    location = /v1/agents {{ alias {static}/list.json; }}
  }}
}}
"""


def save_answers(port, paths, static):
    """The node's answers to `paths`, written as static/KEY.json; {key: bytes}."""
    os.makedirs(static)
    answers = {}
    for key, path in paths.items():
        status, body = get(port, path)
        if status != 200:
            die(f"GET {path}: HTTP {status}")
        with open(os.path.join(static, f"{key}.json"), "wb") as f:
            f.write(body)
        answers[key] = body
    return answers


def start_nginx(options, work, probe, static, paths, answers):
    """nginx in the foreground, serving `answers` at `paths` on a free port,
    once it serves them byte for byte; (process, port)."""
    port = free_port()
    prefix = os.path.join(work, "nginx")
    os.makedirs(os.path.join(prefix, "logs"))
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(prefix=prefix, port=port, probe=probe, static=static))
    stderr_path = os.path.join(prefix, "stderr")
    with open(stderr_path, "wb") as err:
        proc = kill_at_exit(subprocess.Popen([options.nginx, "-p", prefix, "-c", conf], stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=err, preexec_fn=die_with_parent))
    for _ in range(100):
        try:
            if all(get(port, path)[1] == answers[key] for key, path in paths.items()):
                return proc, port
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.05)
    with open(stderr_path, errors="replace") as f:
        die("nginx did not serve the static answers: " + f.read()[-300:])


# --- latency --------------------------------------------------------------------------

def auth_args(port):
    """wrk's header option carrying the token of the node on `port`, if any."""
    token = token_for(port)
    return ["-H", f"Authorization: Bearer {token}"] if token else []


def wrk(options, port, path):
    """One timed wrk run: (p50 s, p99 s, requests per second)."""
    out = run_quietly(["wrk", "--latency", "-t1", f"-c{options.connections}", f"-d{options.seconds}s",
                       "--timeout", "10s"] + auth_args(port) + [f"http://127.0.0.1:{port}{path}"]).stdout
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


def handler_quantiles(port, route):
    """(p50, p99) in seconds of volent_http_handler_seconds for `route`, or None each."""
    _, body = get(port, "/metrics")
    q = {}
    for line in body.decode().splitlines():
        m = re.match(r'^volent_http_handler_seconds\{(.*)\}\s+(\S+)$', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        if labels.get("route") == route and "quantile" in labels:
            q[labels["quantile"]] = float(m.group(2))
    return q.get("0.5"), q.get("0.99")


NODES = ("node", "no-auth")  # the node with authentication, and in development mode


def measure_latency(options, ports, paths):
    """Interleaved wrk runs on the nodes and nginx (`ports` by who); (cells,
    in_handler): cells[(who, key)] and in_handler[(node, key)] map a metric
    to its values."""
    for path in paths.values():  # warm-up, untimed
        for port in ports.values():
            run_quietly(["wrk", "-t1", f"-c{options.connections}", "-d1s"] + auth_args(port) +
                        [f"http://127.0.0.1:{port}{path}"])
    cells = {(who, key): {"p50": [], "p99": [], "rps": []} for who in ports for key in paths}
    in_handler = {(who, key): {"p50": [], "p99": []} for who in NODES for key in paths}
    for r in range(options.runs):
        for key, path in paths.items():
            for who, port in ports.items():
                p50, p99, rps = wrk(options, port, path)
                cells[(who, key)]["p50"].append(p50)
                cells[(who, key)]["p99"].append(p99)
                cells[(who, key)]["rps"].append(rps)
                if who in NODES:
                    h50, h99 = handler_quantiles(port, ROUTES[key])
                    if h50 is None or h99 is None:
                        die(f"/metrics has no volent_http_handler_seconds for route {ROUTES[key]}")
                    in_handler[(who, key)]["p50"].append(h50)
                    in_handler[(who, key)]["p99"].append(h99)
        print(f"  run {r + 1}/{options.runs} done", file=sys.stderr)
    return cells, in_handler


def median_spread(values):
    """(median, spread, flag): spread is (max - min) / median; flag is
    non-empty when it is over SPREAD_LIMIT (and there is more than one run)."""
    m = statistics.median(values)
    s = (max(values) - min(values)) / m if m else 0.0
    flag = "  (over 10%: not trustworthy yet)" if len(values) > 1 and s > SPREAD_LIMIT else ""
    return m, s, flag


def us(seconds):
    return seconds * 1e6


def print_latency(options, paths, sizes, cells, in_handler):
    """The latency table; returns the larger of the routes' median p99 in the handler."""
    print()
    print(f"latency with {options.agents} agents: wrk --latency -t1 -c{options.connections} -d{options.seconds}s, "
          f"kept-alive, loopback; {options.runs} run(s) per cell, interleaved; median (spread)")
    for key, path in paths.items():
        print(f"GET {path}  ({sizes[key]} bytes; nginx serves the same bytes from a file)")
        for who in NODES + ("nginx",):
            cell = cells[(who, key)]
            line = f"  {who:<7} end to end"
            for metric in ("p50", "p99"):
                m, s, flag = median_spread(cell[metric])
                line += f"   {metric} {us(m):8.0f} us ({s * 100:4.1f}%){'!' if flag else ''}"
            m, s, flag = median_spread(cell["rps"])
            line += f"   {m:9.0f} req/s ({s * 100:4.1f}%){'!' if flag else ''}"
            print(line)
        node, nginx = cells[("node", key)], cells[("nginx", key)]
        ratios = [f"{metric} {statistics.median(node[metric]) / statistics.median(nginx[metric]):.2f}x"
                  for metric in ("p50", "p99")]
        ratios.append(f"req/s {statistics.median(node['rps']) / statistics.median(nginx['rps']):.2f}x")
        print(f"  node / nginx: {', '.join(ratios)}")
        off = cells[("no-auth", key)]
        print("  with / without authentication: " +
              ", ".join(f"{metric} {statistics.median(node[metric]) / statistics.median(off[metric]):.2f}x"
                        for metric in ("p50", "p99", "rps")))
        for who in NODES:
            line = f"  {who:<7} in the handler (volent_http_handler_seconds)"
            for metric in ("p50", "p99"):
                m, s, flag = median_spread(in_handler[(who, key)][metric])
                line += f"   {metric} {us(m):7.1f} us ({s * 100:4.1f}%){'!' if flag else ''}"
            print(line)
    series = [v for c in cells.values() for v in c.values()] + [v for c in in_handler.values() for v in c.values()]
    if any(median_spread(v)[2] for v in series):
        print("! spread over 10%: not trustworthy yet (a busy machine; run again or raise API_BENCH_RUNS/SECONDS)")
    return max(statistics.median(in_handler[("node", key)]["p99"]) for key in paths)


def main():
    options = Options(sys.argv[1:])
    sys.stdout.reconfigure(line_buffering=True)
    work = work_folder("volent-api-bench-")
    data = os.path.join(work, "data")

    node = start_node(options, work, data, 1)
    print_machine(options)
    names = [f"agent-{i:05d}" for i in range(options.agents)]
    node = measure_memory(options, work, data, node, names)

    probe = names[len(names) // 2]
    paths = {"get": f"/v1/agents/{probe}", "list": "/v1/agents?limit=100"}
    static = os.path.join(work, "static")
    answers = save_answers(node.port, paths, static)
    nginx, nginx_port = start_nginx(options, work, probe, static, paths, answers)
    # The same agents without authentication: a copy of the data folder (made
    # while the node is stopped) served by a node in development mode.
    node.stop()
    shutil.copytree(data, data + "-no-auth")
    node = start_node(options, work, data, 3)
    dev_config = os.path.join(work, "no-auth.yaml")
    with open(dev_config, "w") as f:
        f.write(open(CONFIG).read() + "\ncontrol:\n  development_no_auth: true\n")
    no_auth = start_node(options, work, data + "-no-auth", 4, dev_config)
    cells, in_handler = measure_latency(options, {"node": node.port, "no-auth": no_auth.port, "nginx": nginx_port},
                                        paths)
    worst_p99 = print_latency(options, paths, {key: len(body) for key, body in answers.items()}, cells, in_handler)
    node.stop()
    no_auth.stop()
    nginx.kill()
    nginx.wait()
    forget(nginx)
    print(f"api p99 in-handler: {us(worst_p99):.1f} us")
    e2e = {who: max(statistics.median(cells[(who, key)]["p99"]) for key in paths) for who in NODES}
    print(f"api p99 end to end: {us(e2e['node']):.0f} us with authentication, {us(e2e['no-auth']):.0f} us without")


if __name__ == "__main__":
    main()
