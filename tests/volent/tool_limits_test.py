#!/usr/bin/env python3
"""A sealed tool's limits bound the node (docs/tools.md, "What a call costs the node").

  tests/volent/tool_limits_test.py --volent BIN --ampoule BIN --verify BIN --modules DIR

The hostile tool is flood.wasm in DIR (tests/volent/tools/flood.c, built by
tests/volent/tool.cmake): it writes to /output as much as it can, up to the
megabytes its arguments name. The script adds it
to a node's store, applies agents whose model (the mock, default plan)
calls it once per run, and checks that:
  - several calls at once, each trying to write 192 MiB with `memory_mb:
    32`, leave the node's peak resident memory (VmHWM in /proc/PID/status)
    within the stated bound: its peak after one small call, plus, for each
    call that can run at once (the node's sealed workers, one per CPU, at
    most the calls started), 8 MiB, plus a margin of 48 MiB; neither the
    tool's memory nor its files are ever held by the node;
  - each of those calls was stopped by the filesystem at its cap: 32 MiB
    (the tool's memory_mb, the default of files_mb), which its receipt
    records as limits.fs_bytes;
  - with `files_mb: 256`, two calls that leave 192 MiB each in /output
    still leave the node within that bound (it hashes the files as they come
    and keeps none), and their receipts name the file with its size and
    digest;
  - `limits.files_mb: 8` is accepted (`volent check`, the control API) and
    caps the files at 8 MiB, recorded in the receipt, and the receipt
    replays off the node with the same result (the cap decides where the
    write stopped, so it must be in the record).

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries, a kernel, the module or /proc.
"""
import argparse, base64, json, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="a sealed tool's limits bound `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--verify", required=True, metavar="BIN")
parser.add_argument("--modules", required=True, metavar="DIR")
opts = parser.parse_args()
skip_unless_runs(opts.volent, "node", "mock-model", "tool", "check")
KERNEL = kernel_or_skip(opts.ampoule)
if not os.path.isfile("/proc/self/status"):
    skip("no /proc/PID/status to read the node's peak memory from")

FLOOD = os.path.join(opts.modules, "flood.wasm")
if not os.path.isfile(FLOOD):
    skip(f"no flood.wasm in {opts.modules} (built by tests/volent/tool.cmake; needs clang-14 and wasi-libc)")
MIB = 1 << 20
# What one running call may cost the node (docs/tools.md): the stdout and
# stderr it keeps (1 MiB each), the engine result's header (at most 4 MiB),
# the tool's program and receipt; rounded up.
PER_CALL = 8 * MIB
# Allocator arenas of the threads that run calls, the journal's writes, the
# control API's answers.
MARGIN = 48 * MIB
CALLS = 4
WORKERS = os.cpu_count() or 1

WORK = work_folder("volent-tool-limits-")
DATA = os.path.join(WORK, "data")
check = Checks(numbered=True)


def run_cmd(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


run_cmd(opts.ampoule, "keygen", "-o", os.path.join(WORK, "author.key"))
with open(os.path.join(WORK, "author.key.pub")) as f:
    author_public = f.read().split()[-1]
mock = start_server([opts.volent, "mock-model", "--listen", "127.0.0.1:0"], os.path.join(WORK, "mock.stderr"),
                    VOLENT_MOCK_MODEL)
config = write_mock_config(WORK, mock.port, tool_keys=[("author", author_public)])
sig = os.path.join(WORK, "flood.sig")
signed = run_cmd(opts.volent, "tool", "sign", FLOOD, "--key", os.path.join(WORK, "author.key"), "-o", sig)
added = run_cmd(opts.volent, "tool", "add", FLOOD, "--sig", sig, "--config", config)
if not check("flood.wasm: signed and added", signed.returncode == 0 and added.returncode == 0,
             signed.stderr + added.stdout + added.stderr):
    check.finish("tool limits: ")
DIGEST = added.stdout.split()[1]

node = start_server([opts.volent, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                    os.path.join(WORK, "node.stderr"), VOLENT_NODE)
PORT, PID = node.port, node.proc.pid


def manifest(name, limits):
    return f"""apiVersion: volent/v1
kind: Agent
metadata:
  name: {name}
spec:
  model:
    provider: openai-compatible
    name: mock
    endpoint: http://127.0.0.1:{mock.port}/v1
    capability: model.mock
  tools:
    - name: flood
      description: writes to /output
      kind: wasm
      component: {DIGEST}
      limits: {limits}
"""


def completion(agent, run_id):
    """The run's tool completion (its journaled payload), or {}."""
    after = 0
    while True:
        s, page = request(PORT, "GET", f"/v1/journal?after={after}&limit=1000")
        if s != 200:
            return {}
        for e in page["entries"]:
            payload = e.get("payload") or {}
            if e.get("kind") == "completion" and str(e.get("key", "")).startswith(f"{agent}/{run_id}/") \
                    and payload.get("type") == "tool":
                return payload
        if page.get("next") is None:
            return {}
        after = page["next"]


def start_run(agent, run_id, mb):
    s, body = request(PORT, "POST", f"/v1/agents/{agent}/runs", json.dumps({"id": run_id, "input": {"mb": mb}}),
                      "application/json")
    return check(f"{agent}/{run_id}: starts", s == 201, f"HTTP {s} {body}")


def wait_run(agent, run_id):
    deadline = time.monotonic() + 300
    s, run = 0, {}
    while time.monotonic() < deadline:
        s, run = request(PORT, "GET", f"/v1/agents/{agent}/runs/{run_id}")
        if s != 200 or run.get("status") in ("finished", "failed"):
            break
        time.sleep(0.2)
    check(f"{agent}/{run_id}: finishes", s == 200 and run.get("status") == "finished", f"HTTP {s} {str(run)[:300]}")
    return completion(agent, run_id)


def predicate(done):
    """The run predicate the call's receipt signs, or {}."""
    try:
        return json.loads(base64.b64decode(done["receipt"]["payload"]))["predicate"]
    except (KeyError, TypeError, ValueError):
        return {}


def stopped_at_cap(done, cap):
    result = done.get("result") or {}
    return (done.get("outcome") == "answered" and 0 < result.get("written", 0) <= cap
            and "No space left" in str(result.get("error"))
            and predicate(done).get("limits", {}).get("fs_bytes") == cap)


# --- one small call, then several hostile calls at once ---------------------------------------------
s, body = request(PORT, "POST", "/v1/agents", manifest("hostile", "{memory_mb: 32, fuel: 50000000000, time_ms: 300000}"),
                  "application/yaml")
check("the agent whose tool states memory_mb: 32 applies", s == 201, f"HTTP {s} {body}")
start_run("hostile", "warm", 1)
warm = wait_run("hostile", "warm")
check("a small call answers", warm.get("outcome") == "answered" and (warm.get("result") or {}).get("written") == MIB,
      str(warm)[:400])
base = status_kib(PID, "VmHWM")

for i in range(CALLS):
    start_run("hostile", f"f{i}", 192)
floods = [wait_run("hostile", f"f{i}") for i in range(CALLS)]
peak = status_kib(PID, "VmHWM")
running = min(WORKERS, CALLS)
bound = base + running * PER_CALL + MARGIN
check.note(f"node peak after one small call {base / MIB:.1f} MiB; after {CALLS} floods {peak / MIB:.1f} MiB "
           f"(+{(peak - base) / MIB:.1f} MiB; bound +{(bound - base) / MIB:.0f} MiB for {running} at once)")
check(f"{CALLS} calls writing 192 MiB each leave the node's peak memory within its peak + {running} x 8 MiB + 48 MiB",
      peak <= bound, f"peak {peak} bytes, bound {bound} (base {base})")
check("each hostile call was stopped by the filesystem at 32 MiB (memory_mb), recorded in its receipt",
      all(stopped_at_cap(done, 32 * MIB) for done in floods),
      "; ".join(f"{d.get('outcome')} {d.get('result') or d.get('reason')} fs_bytes "
                f"{predicate(d).get('limits', {}).get('fs_bytes')}" for d in floods)[:1200])

# --- files the cap lets through: still never held by the node --------------------------------------
s, body = request(PORT, "POST", "/v1/agents", manifest("roomy", "{memory_mb: 32, files_mb: 256, fuel: 50000000000, "
                                                                 "time_ms: 300000}"), "application/yaml")
check("the agent stating files_mb: 256 applies", s == 201, f"HTTP {s} {body}")
before = status_kib(PID, "VmHWM")
for i in range(2):
    start_run("roomy", f"r{i}", 192)
roomy = [wait_run("roomy", f"r{i}") for i in range(2)]
peak = status_kib(PID, "VmHWM")
bound = before + min(WORKERS, 2) * PER_CALL + MARGIN
check.note(f"node peak before {before / MIB:.1f} MiB; after 2 calls leaving 192 MiB each {peak / MIB:.1f} MiB")
check("2 calls that leave 192 MiB each in /output (within files_mb) leave the node's peak within the same bound",
      peak <= bound and all((d.get("result") or {}).get("written") == 192 * MIB for d in roomy),
      f"peak {peak} bytes, bound {bound}; " + "; ".join(str(d.get("result") or d.get("reason")) for d in roomy))
outputs = [predicate(d).get("outputs") or [] for d in roomy]
check("... and their receipts still name the output file, its size and digest",
      all(o and o[0].get("name") == "flood.bin" and o[0].get("bytes") == 192 * MIB and len(o[0].get("sha256", "")) == 64
          for o in outputs), str(outputs)[:400])

# --- files_mb: stated by the manifest, checked, honoured, recorded, replayed ------------------------
stated = manifest("stated", "{memory_mb: 32, files_mb: 8, fuel: 50000000000, time_ms: 300000}")
manifest_path = os.path.join(WORK, "stated.agent.yaml")
with open(manifest_path, "w") as f:
    f.write(stated)
checked = run_cmd(opts.volent, "check", "--config", config, manifest_path)
check("volent check accepts limits.files_mb", checked.returncode == 0, checked.stdout + checked.stderr)
bad_path = os.path.join(WORK, "bad.agent.yaml")
with open(bad_path, "w") as f:
    f.write(manifest("bad", "{memory_mb: 32, files_mb: 0}"))
refused = run_cmd(opts.volent, "check", "--config", config, bad_path)
check("volent check refuses files_mb: 0, naming the field", refused.returncode != 0
      and "files_mb" in refused.stdout + refused.stderr, refused.stdout + refused.stderr)
s, body = request(PORT, "POST", "/v1/agents", stated, "application/yaml")
check("the agent stating files_mb: 8 applies", s == 201, f"HTTP {s} {body}")
start_run("stated", "s1", 192)
done = wait_run("stated", "s1")
check("files_mb: 8 stops the tool's writes at 8 MiB, recorded in its receipt", stopped_at_cap(done, 8 * MIB),
      str(done)[:600])

receipt = os.path.join(WORK, "stated.receipt.json")
with open(receipt, "w") as f:
    json.dump(done.get("receipt") or {}, f)
stdin = os.path.join(WORK, "stated.stdin")
with open(stdin, "w") as f:
    f.write(done.get("stdin", ""))
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", os.path.join(DATA, "node.key.pub"),
            "--program", FLOOD, "--stdin", stdin)
check("the call replays off the node: the same cap stops the same write", r.returncode == 0
      and "REPLAY OK" in r.stdout, r.stdout + r.stderr)

node.stop()
check.finish("tool limits: ")
