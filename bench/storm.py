#!/usr/bin/env python3
"""The sandbox storm (docs/tools.md): many sealed tool calls fired at one
node at once, beside the same tool as a native program started per call.

    bash bench/storm.sh [--build DIR | --volent BIN] [--quick]
    python3 bench/storm.py [--build DIR | --volent BIN] [--quick]

For each size (STORM_SIZES, default "1000 10000"), STORM_RUNS times (default
3), on a fresh data folder:
  1. `volent mock-model` is the model (its default plan calls the agent's one
     tool with the run's input, then answers); `volent node` trusts RFC 8032's
     test key 1, and the example tool (build/tool-modules/refund_policy.wasm,
     examples/tools/refund_policy.c) is signed with it and added to the store;
  2. one agent with that tool as its only tool (kind wasm) is applied, and
     SIZE runs are POSTed at once (16 threads over kept-alive connections),
     each with its own input, so each makes one sealed tool call;
  3. the journal is read as it grows (GET /v1/journal, pages after the last
     entry seen) until every run has finished: completed = runs whose tool
     call was answered with the module's result for that input; crashed =
     every other run (a failed tool call, a failed run, none at all when
     the wait ends). Invocations per second = SIZE / (last run finished -
     first POST). Peak memory: the largest resident set of the node and
     its children (the engine processes), sampled every 0.2 s.
Beside it, in the same run: the same C source built natively (cc -O2) and
started once per call in a fresh process, one per core at a time, with the
same inputs on stdin: native invocations per second, and the ratio
node / native (how much of a native process per call the sealed, journaled,
receipted call costs). Each figure is the median of the runs with its
spread (max - min) / median; over 10% is flagged as not trustworthy yet.
The bar: SIZE completed and 0 crashed in every run. Exit status 1 when the
bar is missed, 2 on a usage error or a missing program.

--quick (or STORM_QUICK=1): 100 calls, one run; a smoke run, not figures.

Environment: STORM_RUNS, STORM_SIZES, STORM_MODULE (the tool module),
VOLENT (default build/bin/volent; --build DIR means DIR/bin/volent). The
node finds its kernel as `ampoule kernel path` says (build/share/ampoule).
"""
import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from api import median_spread, rss_kib  # noqa: E402
from bench_options import Usage, volent_and_quick  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import json_body, request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, NotListening, Server  # noqa: E402

USAGE = "usage: bash bench/storm.sh [--build DIR | --volent BIN] [--quick]"
USAGE_ERRORS = Usage("storm", USAGE)
SOURCE = os.path.join(ROOT, "examples/tools/refund_policy.c")
# RFC 8032's test key 1: its secret is public (tests, examples and benchmarks only).
KEY_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
KEY_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
POST_THREADS = 16
WAIT_SECONDS = 1800  # for one storm to finish, a safety net only


def arguments(i):
    return {"amount_cents": 100 * i, "days_since_delivery": i % 40, "opened": i % 2 == 0}


def expected(i):
    """refund_policy's answer for arguments(i) (examples/tools/refund_policy.c)."""
    a = arguments(i)
    if a["days_since_delivery"] > 30:
        return {"refundable_cents": 0, "rule": "expired"}
    if a["opened"]:
        return {"refundable_cents": a["amount_cents"] - a["amount_cents"] // 10, "rule": "restocking-fee"}
    return {"refundable_cents": a["amount_cents"], "rule": "full"}


def die(text):
    print(f"storm: {text}", file=sys.stderr)
    sys.exit(2)


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


class Storm:
    """One node with the tool in its store and the storm agent applied."""

    def __init__(self, volent, module, work, number):
        self.work = os.path.join(work, f"storm-{number}")
        os.makedirs(self.work)
        self.mock = Server([volent, "mock-model", "--listen", "127.0.0.1:0"],
                           os.path.join(self.work, "mock.err"), VOLENT_MOCK_MODEL)
        config = write_mock_config(self.work, self.mock.port, tool_keys=[
            ("rfc8032-test-key-1", base64.b64encode(bytes.fromhex(KEY_PUBLIC)).decode())])
        tool_key = os.path.join(self.work, "tool.key")
        with open(os.open(tool_key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("ed25519-secret " + base64.b64encode(bytes.fromhex(KEY_SEED)).decode() + "\n")
        sig = os.path.join(self.work, "tool.sig")
        data = os.path.join(self.work, "data")
        signed = run([volent, "tool", "sign", module, "--key", tool_key, "-o", sig])
        added = run([volent, "tool", "add", module, "--sig", sig, "--config", config, "--data-dir", data])
        if signed.returncode or added.returncode:
            die(f"cannot add the tool: {signed.stderr}{added.stderr}")
        digest = added.stdout.split()[1]
        try:
            self.node = Server([volent, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", data],
                               os.path.join(self.work, "node.err"), VOLENT_NODE)
        except NotListening as e:
            die(f"the node did not start: {e}")
        manifest = f"""apiVersion: volent/v1
kind: Agent
metadata:
  name: storm
spec:
  model:
    provider: openai-compatible
    name: mock
    endpoint: http://127.0.0.1:{self.mock.port}/v1
    capability: model.mock
    budget:
      max_concurrent: 10000
  tools:
    - name: refund_policy
      description: The refundable amount of an order.
      kind: wasm
      component: {digest}
      limits: {{memory_mb: 32, fuel: 100000000, time_ms: 60000}}
"""
        status, _, body = request("127.0.0.1", self.node.port, "POST", "/v1/agents", manifest,
                                  {"Content-Type": "application/yaml"})
        if status != 201:
            die(f"the agent was refused: HTTP {status} {body[:300]!r}")

    def fire(self, size):
        """POSTs `size` runs at once; the time of the first POST."""
        todo = list(range(size))
        lock = threading.Lock()
        errors = []

        def worker():
            conn = http.client.HTTPConnection("127.0.0.1", self.node.port, timeout=60)
            while True:
                with lock:
                    if not todo:
                        break
                    i = todo.pop()
                body = json.dumps({"id": f"r{i}", "input": arguments(i)})
                status, _, answer = request("127.0.0.1", self.node.port, "POST", "/v1/agents/storm/runs", body,
                                            {"Content-Type": "application/json"}, conn=conn)
                if status != 201:
                    errors.append(f"r{i}: HTTP {status} {answer[:200]!r}")
            conn.close()

        t0 = time.monotonic()
        threads = [threading.Thread(target=worker) for _ in range(POST_THREADS)]
        for t in threads:
            t.start()
        return t0, threads, errors

    def wait(self, size, threads):
        """Reads the journal as it grows until `size` runs have finished.
        (finish time, tool completions by run, runs finished, peak RSS KiB)."""
        after, finished, tools, peak = 0, set(), {}, 0
        deadline = time.monotonic() + WAIT_SECONDS
        conn = http.client.HTTPConnection("127.0.0.1", self.node.port, timeout=60)
        while time.monotonic() < deadline:
            peak = max(peak, rss_kib(self.node.proc.pid))
            status, _, body = request("127.0.0.1", self.node.port, "GET", f"/v1/journal?after={after}&limit=1000",
                                      conn=conn)
            page = json_body(body) if status == 200 else None
            if not page:
                time.sleep(0.2)
                continue
            for e in page["entries"]:
                after = max(after, e["seq"])
                p = e.get("payload") or {}
                if e.get("kind") == "run-finished":
                    finished.add(e.get("run"))
                elif e.get("kind") == "completion" and p.get("type") == "tool":
                    tools.setdefault(e.get("run"), []).append(p)
            if len(finished) >= size and not any(t.is_alive() for t in threads):
                break
            if page.get("next") is None:
                time.sleep(0.2)
        conn.close()
        return time.monotonic(), tools, finished, peak

    def stop(self):
        self.node.stop()
        self.mock.stop()


def storm_once(volent, module, work, number, size):
    storm = Storm(volent, module, work, number)
    try:
        t0, threads, errors = storm.fire(size)
        t1, tools, finished, peak = storm.wait(size, threads)
        for t in threads:
            t.join()
    finally:
        storm.stop()
    completed = sum(1 for i in range(size)
                    if len(tools.get(f"r{i}", [])) == 1 and tools[f"r{i}"][0].get("outcome") == "answered"
                    and tools[f"r{i}"][0].get("result") == expected(i) and f"r{i}" in finished)
    if errors:
        print(f"  {len(errors)} runs not started, e.g. {errors[0]}")
    shutil.rmtree(storm.work, ignore_errors=True)
    return {"completed": completed, "crashed": size - completed, "per_second": size / (t1 - t0),
            "peak_mb": peak / 1024}


def native_once(binary, size):
    """Invocations per second of the native tool, a fresh process per call, one per core."""
    inputs = [json.dumps(arguments(i)) for i in range(size)]

    def call(i):
        r = subprocess.run([binary], input=inputs[i], capture_output=True, text=True)
        return r.returncode == 0 and json.loads(r.stdout) == expected(i)

    t0 = time.monotonic()
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        ok = sum(pool.map(call, range(size)))
    return {"completed": ok, "per_second": size / (time.monotonic() - t0)}


def main():
    volent, quick = volent_and_quick(sys.argv[1:], ROOT, "STORM_QUICK", USAGE_ERRORS)
    module = os.environ.get("STORM_MODULE") or os.path.join(os.path.dirname(os.path.dirname(volent)),
                                                             "tool-modules", "refund_policy.wasm")
    if not os.path.isfile(module):
        die(f"no tool module {module} (built by tests/volent/tool.cmake; or set STORM_MODULE)")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        die("no C compiler for the native peer (apt-get install gcc)")
    runs = 1 if quick else USAGE_ERRORS.env_int("STORM_RUNS", 3)
    sizes = [100] if quick else [int(s) for s in os.environ.get("STORM_SIZES", "1000 10000").split()]
    work = work_folder("volent-storm-")
    native = os.path.join(work, "refund_policy")
    built = run([cc, "-O2", "-o", native, SOURCE])
    if built.returncode:
        die(f"cannot build the native peer: {built.stderr}")
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"storm: {volent}; tool {module}; {os.cpu_count()} cores, load average {load}; "
          f"{runs} run(s) per size{' (--quick: a smoke run, not figures)' if quick else ''}")
    missed = False
    number = 0
    for size in sizes:
        cells = []
        for r in range(runs):
            number += 1
            node = storm_once(volent, module, work, number, size)
            peer = native_once(native, size)
            cells.append((node, peer))
            print(f"  {size} calls, run {r + 1}: node {node['completed']} completed / {node['crashed']} crashed, "
                  f"{node['per_second']:.1f}/s, peak {node['peak_mb']:.0f} MB; "
                  f"native {peer['completed']} ok, {peer['per_second']:.1f}/s")
            missed |= node["completed"] != size or node["crashed"] != 0 or peer["completed"] != size
        rate, rate_spread, rate_flag = median_spread([n["per_second"] for n, _ in cells])
        nrate, nrate_spread, nrate_flag = median_spread([p["per_second"] for _, p in cells])
        ratio, ratio_spread, ratio_flag = median_spread([n["per_second"] / p["per_second"] for n, p in cells])
        peak, _, _ = median_spread([n["peak_mb"] for n, _ in cells])
        worst = min(n["completed"] for n, _ in cells)
        print(f"storm {size}: completed {worst}/{size} (worst run), crashed "
              f"{max(n['crashed'] for n, _ in cells)}; node {rate:.1f} calls/s (spread {rate_spread:.0%}){rate_flag}; "
              f"native process per call {nrate:.1f} calls/s (spread {nrate_spread:.0%}){nrate_flag}; "
              f"node/native {ratio:.3f} (spread {ratio_spread:.0%}){ratio_flag}; peak memory {peak:.0f} MB")
    print("storm: bar " + ("missed" if missed else "met") + ": every call completed, none crashed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
