#!/usr/bin/env python3
"""The sealed image, built and booted under QEMU (docs/image.md).

  tests/image/image_test.py --build DIR [--agents N] [--steps N] [--keep]

1. Starts tests/volent/chaos_receiver.py (a service that honours
   Idempotency-Key and counts what it applied) and `volent mock-model` on the
   host's loopback, writes a node configuration allowing the VM to reach
   both through QEMU's host address 10.0.2.2, and builds an image with it
   (scripts/build-image.sh --config): the build's own root checks pass.
2. checks: boots it with volent.test=checks: the root is read-only, the
   verity device carries the root hash, /data takes a file but a binary
   copied there does not run, no shell or interpreter exists in the root.
3. tampering: one byte flipped in a block of the squashfs (the first, one in
   the middle) or of the hash tree, and the right disk under a wrong root
   hash: each boot must halt (the kernel's dm-verity panic or the init's
   halt line) with the node never started, and QEMU must exit by itself.
4. the node: boots it for real, its control API forwarded to a host port;
   /healthz answers (with the admin token made in /data's seed by
   `volent credential create` before the first boot); the attestation report says the verity-only profile
   with the image's root hash, and that the node runs as uid 470 with no capability, no_new_privs and
   seccomp 2 (the console says it locked itself down); a signed wasm tool (refund_policy.wasm, when the
   build made it) is added over the API and a run's call of it answers with a receipt: the jail works
   under the node's user; N agents (default 4, each calling S http
   tools, default 4, on the receiver through the egress gate, and the mock
   as model) are applied and run. Once about a third of the effects have
   landed, QEMU is killed with SIGKILL; the image boots again on the same
   /data, the runs are posted again with the same ids and resume; every run
   finishes, and the receiver applied every effect exactly once (none
   duplicated, none lost).
5. stop: boots on that /data with volent.test=stop: PID 1 takes its SIGTERM
   path (the node stopped with status 0, /data flushed, power-off).
Every QEMU runs under `timeout` (scripts/boot-image.sh); a boot that hangs
is tried once more.

Prints `skipped: REASON` (exit 0) without QEMU, the image tools, the kernel
package, a static volent-init or the Ampoule kernel; `FAIL: ...` lines and
exit 1 on a failure.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness.checks import skip  # noqa: E402
from harness.cleanup import die_with_parent, kill_at_exit, work_folder  # noqa: E402
from harness.http_client import request  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, Server  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--build", required=True)
parser.add_argument("--agents", type=int, default=4)
parser.add_argument("--steps", type=int, default=4)
parser.add_argument("--keep", action="store_true")
args = parser.parse_args()
BUILD = os.path.abspath(args.build)
VOLENT = os.path.join(BUILD, "bin", "volent")
INIT = os.path.join(BUILD, "bin", "volent-init")
MOCK_KEY = "sk-image-mock-key"
HOST = "10.0.2.2"  # the host, as QEMU's user networking shows it to the guest
FAILURES = []


def fail(message):
    FAILURES.append(message)
    print(f"FAIL: {message}", flush=True)


def ok(message):
    print(f"ok: {message}", flush=True)


# --- what must be there -----------------------------------------------------------------------------
for tool in ("qemu-system-x86_64", "mksquashfs", "unsquashfs", "veritysetup", "qemu-img", "mkfs.ext4"):
    if not shutil.which(tool):
        skip(f"{tool} not found (scripts/setup.sh installs qemu-system-x86, squashfs-tools, cryptsetup-bin, "
             "qemu-utils, e2fsprogs)")
for f in (VOLENT, INIT, os.path.join(BUILD, "share", "ampoule", "ampoule.kernel")):
    if not os.path.isfile(f):
        skip(f"no {f} (built by scripts/test.sh's build phase)")
if b"INTERP" in subprocess.run(["readelf", "-l", INIT], capture_output=True).stdout:
    skip(f"{INIT} is dynamically linked (sanitizer builds make it so); the initramfs has no loader")
kernel = subprocess.run(["bash", os.path.join(ROOT, "scripts", "image", "kernel.sh")], capture_output=True, text=True)
if kernel.returncode == 3:
    skip(f"no kernel: {kernel.stderr.strip().splitlines()[-1]}")
if kernel.returncode != 0:
    print(kernel.stderr)
    print(f"FAIL: scripts/image/kernel.sh exited {kernel.returncode}")
    sys.exit(1)

WORK = work_folder("volent-image-", keep=args.keep)
if args.keep:
    print(f"work folder: {WORK}")


# --- the host side: receiver and model -----------------------------------------------------------------
def start_receiver():
    err = open(os.path.join(WORK, "receiver.stderr"), "wb")
    proc = kill_at_exit(subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "volent", "chaos_receiver.py")],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                         preexec_fn=die_with_parent))
    line = proc.stdout.readline().decode().strip()
    if not line.isdigit():
        print(f"FAIL: the receiver did not print its port (got {line!r})")
        sys.exit(1)
    return int(line)


def receiver_stats(port):
    status, _, data = request("127.0.0.1", port, "GET", "/stats")
    return json.loads(data) if status == 200 else {}


RECEIVER = start_receiver()
MOCK = Server([VOLENT, "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
              os.path.join(WORK, "mock-model.stderr"), VOLENT_MOCK_MODEL, stdout_too=False)

# A sealed tool: the example wasm module, signed by a fresh author key the
# configuration trusts; its call in the VM runs in the Ampoule jail under the
# node's own user (unprivileged user namespaces).
TOOL_MODULE = os.path.join(BUILD, "tool-modules", "refund_policy.wasm")
AMPOULE = os.path.join(BUILD, "bin", "ampoule")
TOOL_KEYS = ""
TOOL_SIG = None
if os.path.isfile(TOOL_MODULE) and os.path.isfile(AMPOULE):
    subprocess.run([AMPOULE, "keygen", "-o", os.path.join(WORK, "author.key")], check=True, capture_output=True)
    with open(os.path.join(WORK, "author.key.pub")) as f:
        TOOL_KEYS = f"tool_keys:\n  - name: author\n    public_key: {f.read().split()[-1]}\n"
    TOOL_SIG = os.path.join(WORK, "refund_policy.sig")
    subprocess.run([VOLENT, "tool", "sign", TOOL_MODULE, "--key", os.path.join(WORK, "author.key"), "-o", TOOL_SIG],
                   check=True, capture_output=True)

CONFIG = os.path.join(WORK, "config")
os.makedirs(CONFIG)
with open(os.open(os.path.join(CONFIG, "model.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(MOCK_KEY + "\n")
with open(os.path.join(CONFIG, "volent.yaml"), "w") as f:
    f.write(f"""# tests/image/image_test.py: the receiver and the mock model on the host, through QEMU's {HOST}.
apiVersion: volent/v1
kind: NodeConfig
listen: 0.0.0.0:8470
data_dir: /data
egress:
  allow:
    - capability: chaos.receiver
      scheme: http
      cidr: {HOST}/32
      port: {RECEIVER}
      path_prefix: /effect/
      methods: [POST]
    - capability: model.mock
      scheme: http
      cidr: {HOST}/32
      port: {MOCK.port}
      methods: [POST]
model_keys:
  - capability: model.mock
    key_file: /etc/volent/model.key
{TOOL_KEYS}""")

# --- 1. the build ----------------------------------------------------------------------------------------
IMAGE = os.path.join(WORK, "image")
t0 = time.monotonic()
built = subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-image.sh"), "--build", BUILD, "--config", CONFIG,
                        "--out", IMAGE], capture_output=True, text=True)
print(built.stderr, end="")
if built.returncode != 0:
    print(f"FAIL: scripts/build-image.sh exited {built.returncode}")
    sys.exit(1)
ENV = dict(re.findall(r"^([A-Z_]+)='?(.*?)'?$", open(os.path.join(IMAGE, "image.env")).read(), re.M))
ROOTHASH, DATA_BLOCKS, HASH_START = ENV["ROOTHASH"], int(ENV["DATA_BLOCKS"]), int(ENV["HASH_START"])
ok(f"image built in {time.monotonic() - t0:.1f} s, root hash {ROOTHASH}")
if "root check: no shell" not in built.stderr:
    fail("the build did not report its root check")


# --- booting ------------------------------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Vm:
    """scripts/boot-image.sh in its own process group (timeout and QEMU): `kill` is SIGKILL to both."""

    def __init__(self, name, *boot_args, data=None, timeout=None, seed=None):
        self.console = os.path.join(WORK, f"console.{name}")
        self.api_port = free_port()
        argv = ["bash", os.path.join(ROOT, "scripts", "boot-image.sh"), "--image", IMAGE, "--api-port",
                str(self.api_port), "--data", data or os.path.join(WORK, f"data.{name}.img")] + list(boot_args)
        if timeout:
            argv += ["--timeout", str(timeout)]
        if seed:
            argv += ["--seed", seed]
        with open(self.console, "wb") as out:
            self.proc = kill_at_exit(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                                      stderr=subprocess.STDOUT, start_new_session=True))

    def text(self):
        with open(self.console, "rb") as f:
            return f.read().decode(errors="replace").replace("\r", "")

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def api(self, method, path, body=None, timeout=20):
        try:
            status, _, data = request("127.0.0.1", self.api_port, method, path, body,
                                      headers={"Authorization": f"Bearer {TOKEN}"}, timeout=timeout)
        except OSError:
            return 0, None
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None


def boot_to_end(name, *boot_args, data=None):
    """Boots until QEMU exits by itself; a boot that hung (timeout 124) is tried once more."""
    for attempt in (1, 2):
        vm = Vm(name, *boot_args, data=data, timeout=90)
        rc = vm.wait(120)
        if rc is None:
            vm.kill()
            rc = 124
        if rc == 124 and attempt == 1:
            print(f"note: boot {name} hung; trying once more")
            continue
        return rc, vm.text()


def tail(text, n=15):
    return "\n    ".join(text.strip().splitlines()[-n:])


# --- 2. checks from inside ---------------------------------------------------------------------------------
rc, console = boot_to_end("checks", "--test", "checks")
for name in ("root-read-only", "verity-active", "data-writable", "data-noexec", "no-shell"):
    if f"volent-init: check {name}: ok" not in console:
        fail(f"check {name} did not pass:\n    {tail(console)}")
if rc == 0 and "checks: 5 passed, 0 failed" in console:
    ok("checks from inside: root read-only, verity active with the root hash, /data writable and noexec, no shell")
elif rc != 0:
    fail(f"the checks boot ended with {rc}:\n    {tail(console)}")


# --- 3. tampering halts before the node starts ----------------------------------------------------------------
def expect_halt(label, rc, console):
    halted = "dm-verity device corrupted" in console or "volent-init: halt:" in console
    started = "started /usr/bin/volent" in console
    if rc == 124:
        fail(f"{label}: QEMU did not exit (timeout): {tail(console)}")
    elif not halted or started:
        fail(f"{label}: expected a halt before the node starts (halted {halted}, node started {started}):\n"
             f"    {tail(console)}")
    else:
        reason = next((line for line in console.splitlines()
                       if "corrupted" in line or "volent-init: halt:" in line), "")
        ok(f"{label}: halted before the node started ({reason.strip()})")


for label, block in (("a flipped byte in the squashfs's first block", 0),
                     ("a flipped byte in the middle of the squashfs", DATA_BLOCKS // 2),
                     ("a flipped byte in the hash tree", HASH_START)):
    disk = os.path.join(WORK, "tampered.raw")
    shutil.copyfile(os.path.join(IMAGE, "disk.raw"), disk)
    with open(disk, "r+b") as f:
        f.seek(block * 4096 + 123)
        byte = f.read(1)
        f.seek(block * 4096 + 123)
        f.write(bytes([byte[0] ^ 0x01]))
    rc, console = boot_to_end("tampered", "--disk", disk)
    expect_halt(label, rc, console)
    os.unlink(disk)

wrong = ROOTHASH[:-1] + ("0" if ROOTHASH[-1] != "0" else "1")
rc, console = boot_to_end("wronghash", "--set", f"roothash={wrong}")
expect_halt("the right disk under a wrong root hash", rc, console)


# --- 4. the node in the VM, killed and booted again ----------------------------------------------------------------
AGENTS, STEPS = args.agents, args.steps
DATA = os.path.join(WORK, "data.node.img")
# The operator's first token, made in the seed of /data before the first boot
# (the node's own bootstrap token would stay inside the VM).
SEED = os.path.join(WORK, "seed")
TOKEN_FILE = os.path.join(WORK, "admin.token")
made = subprocess.run([VOLENT, "credential", "create", "--data-dir", SEED, "--name", "image test", "--role", "admin",
                       "-o", TOKEN_FILE], capture_output=True, text=True)
if made.returncode != 0:
    print(f"FAIL: volent credential create: {made.stderr.strip()}")
    sys.exit(1)
TOKEN = open(TOKEN_FILE).read().strip()


def manifest(i):
    name = f"vm-{i:02d}"
    base = f"http://{HOST}:{MOCK.port}"
    model = ({"provider": "anthropic", "name": "mock-claude", "endpoint": base, "capability": "model.mock"} if i % 2
             else {"provider": "openai-compatible", "name": "mock-gpt", "endpoint": base + "/v1",
                   "capability": "model.mock"})
    return {"apiVersion": "volent/v1", "kind": "Agent", "metadata": {"name": name},
            "spec": {"instructions": "Call every tool once, in order, with the run's input.", "model": model,
                     "tools": [{"name": f"effect_{n}", "description": f"Side effect {n} of {name}.", "kind": "http",
                                "capability": "chaos.receiver",
                                "http": {"method": "POST", "url": f"http://{HOST}:{RECEIVER}/effect/{name}/{n}"},
                                "limits": {"time_ms": 10000}} for n in range(1, STEPS + 1)]}}


def wait_api(vm, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if vm.proc.poll() is not None:
            return False
        status, _ = vm.api("GET", "/healthz", timeout=3)
        if status == 200:
            return True
        time.sleep(0.3)
    return False


def post_runs(vm):
    statuses = {}
    for i in range(1, AGENTS + 1):
        status, body = vm.api("POST", f"/v1/agents/vm-{i:02d}/runs", {"id": f"run-{i:02d}", "input": {"n": i}})
        statuses[i] = status
    return statuses


def boot_node(name):
    for attempt in (1, 2):
        vm = Vm(name, data=DATA, seed=None if os.path.exists(DATA) else SEED)
        t = time.monotonic()
        if wait_api(vm, 120):
            return vm, time.monotonic() - t
        vm.kill()
        print(f"note: node boot {name} did not answer (attempt {attempt}):\n    {tail(vm.text())}")
    return None, 0


def sealed_tool_call(vm):
    """A wasm tool call in the VM: the jail works under the node's user, no capability, its seccomp filter."""
    if not TOOL_SIG:
        print(f"note: no {TOOL_MODULE} or {AMPOULE} (a full build makes them): no sealed tool call in the VM")
        return
    import base64
    with open(TOOL_MODULE, "rb") as f, open(TOOL_SIG) as g:
        status, added = vm.api("POST", "/v1/tools", {"tool": base64.b64encode(f.read()).decode(),
                                                     "signature": json.load(g)})
    if status not in (200, 201):
        return fail(f"POST /v1/tools refund_policy: HTTP {status} {str(added)[:300]}")
    agent = {"apiVersion": "volent/v1", "kind": "Agent", "metadata": {"name": "vm-sealed"},
             "spec": {"instructions": "Call the tool with the run's input.",
                      "model": {"provider": "openai-compatible", "name": "mock-gpt",
                                "endpoint": f"http://{HOST}:{MOCK.port}/v1", "capability": "model.mock"},
                      "tools": [{"name": "refund_policy", "description": "The refund policy.", "kind": "wasm",
                                 "component": added.get("digest"),
                                 "limits": {"memory_mb": 32, "fuel": 200000000, "time_ms": 120000}}]}}
    status, body = vm.api("POST", "/v1/agents", agent)
    if status not in (200, 201):
        return fail(f"POST /v1/agents vm-sealed: HTTP {status} {str(body)[:300]}")
    status, body = vm.api("POST", "/v1/agents/vm-sealed/runs",
                          {"id": "sealed-1", "input": {"amount_cents": 12000, "days_since_delivery": 3, "opened": True}})
    if status != 201:
        return fail(f"POST the sealed tool's run: HTTP {status} {str(body)[:300]}")
    deadline = time.monotonic() + 240
    run = {}
    while time.monotonic() < deadline:
        status, run = vm.api("GET", "/v1/agents/vm-sealed/runs/sealed-1")
        if status == 200 and run.get("status") in ("finished", "failed"):
            break
        time.sleep(0.5)
    calls = [c for c in (run or {}).get("tool_calls", []) if c.get("tool") == "refund_policy"]
    if run.get("status") == "finished" and calls and calls[0].get("outcome") == "answered" and calls[0].get("receipt"):
        ok(f"a sealed wasm tool call ran in the VM under the node's user (the jail unprivileged): answered, "
           f"with a receipt")
    else:
        fail(f"the sealed tool call in the VM: {str(run)[:600]}\n    {tail(vm.text())}")


total = AGENTS * STEPS
vm, took = boot_node("node.1")
if not vm:
    fail("the node in the VM never answered /healthz")
else:
    ok(f"the node in the VM answers /healthz through the forwarded port ({took:.1f} s after QEMU started)")
    status, headers, _ = request("127.0.0.1", vm.api_port, "GET", "/v1/agents")
    if status != 401 or "www-authenticate" not in headers:
        fail(f"GET /v1/agents without a token: HTTP {status} (expected 401 with WWW-Authenticate)")
    else:
        ok("the VM's API refuses a request without a token (401, WWW-Authenticate)")
    status, report = vm.api("GET", "/v1/attestation?nonce=00112233")
    if status != 200:
        fail(f"GET /v1/attestation: HTTP {status} {report}")
    else:
        import base64
        predicate = json.loads(base64.b64decode(report["payload"]))["predicate"]
        boot = predicate.get("boot", {})
        if boot.get("profile") == "verity-only" and boot.get("verity_roothash") == ROOTHASH:
            ok(f"attestation: profile verity-only, root hash {ROOTHASH[:16]}…; tpm: "
               f"{json.dumps(predicate.get('tpm'))[:80]}")
        else:
            fail(f"attestation boot section: {boot} (expected verity-only with {ROOTHASH})")
        # The node runs as its own user, with no capability, no_new_privs and
        # its seccomp filter, as the kernel says in its /proc/self/status.
        process = predicate.get("process") or {}
        none = "0" * 16
        wanted = {"uid": 470, "gid": 470, "cap_eff": none, "cap_prm": none, "cap_bnd": none, "no_new_privs": 1,
                  "seccomp": 2}
        if process == wanted:
            ok(f"attestation: the node runs as uid 470, no capability (effective, permitted, bounding), "
               f"no_new_privs 1, seccomp 2 (filter)")
        else:
            fail(f"attestation process section: {process} (expected {wanted})")
        if "volent node: locked down: uid 470 gid 470" not in vm.text():
            fail(f"the console does not say the node locked itself down:\n    {tail(vm.text())}")
    sealed_tool_call(vm)
    for i in range(1, AGENTS + 1):
        status, body = vm.api("POST", "/v1/agents", manifest(i))
        if status not in (200, 201):
            fail(f"POST /v1/agents vm-{i:02d}: HTTP {status} {body}")
    post_runs(vm)
    deadline = time.monotonic() + 120
    applied = 0
    while time.monotonic() < deadline:
        applied = receiver_stats(RECEIVER).get("applied", 0)
        if applied >= max(1, total // 3):
            break
        time.sleep(0.05)
    vm.kill()
    ok(f"QEMU killed with SIGKILL after {applied}/{total} effects applied")

    vm, took = boot_node("node.2")
    if not vm:
        fail("the node did not come back after the kill")
    else:
        ok(f"booted again on the same /data: the node answers ({took:.1f} s)")
        reposted = post_runs(vm)
        deadline = time.monotonic() + 180
        runs = {}
        while time.monotonic() < deadline:
            status, body = vm.api("GET", "/v1/runs?limit=1000")
            if status == 200:
                runs = {(r.get("agent"), r.get("id")): r for r in body.get("runs", [])}
                mine = [runs.get((f"vm-{i:02d}", f"run-{i:02d}")) for i in range(1, AGENTS + 1)]
                if all(r and r.get("status") in ("finished", "failed") for r in mine):
                    break
            time.sleep(0.5)
        mine = [runs.get((f"vm-{i:02d}", f"run-{i:02d}")) for i in range(1, AGENTS + 1)]
        finished = sum(1 for r in mine if r and r.get("status") == "finished")
        stats = receiver_stats(RECEIVER)
        effects = stats.get("effects", {})
        lost = [f"/effect/vm-{i:02d}/{n}" for i in range(1, AGENTS + 1) for n in range(1, STEPS + 1)
                if effects.get(f"/effect/vm-{i:02d}/{n}", 0) == 0]
        print(f"image: node: {finished}/{AGENTS} runs finished, {len(effects) - len(lost) if effects else 0} effects "
              f"applied, {stats.get('duplicated_effects')} duplicated, {len(lost)} lost; re-delivered keys "
              f"{stats.get('redelivered_keys')} (deduplicated by the receiver); re-posted runs: "
              f"{sorted(set(reposted.values()))}")
        if finished != AGENTS:
            fail(f"{AGENTS - finished} runs did not finish: {[r and (r.get('status'), r.get('error')) for r in mine]}")
        if stats.get("duplicated_effects") != 0:
            fail(f"effects applied twice: {stats.get('duplicated')}")
        if lost:
            fail(f"effects never applied: {lost[:8]}")
        if stats.get("unkeyed"):
            fail(f"{stats.get('unkeyed')} requests without Idempotency-Key")
        if finished == AGENTS and not lost and stats.get("duplicated_effects") == 0:
            ok(f"every run finished after the kill: {total}/{total} effects applied once, none duplicated, none lost")
        vm.kill()

# --- 5. a clean stop: the SIGTERM path of PID 1 --------------------------------------------------------------
rc, console = boot_to_end("stop", "--test", "stop", data=DATA)
wanted = ["volent-init: started /usr/bin/volent", "volent-init: shutting down",
          "volent-init: /usr/bin/volent exited with status 0", "volent-init: powering off", "reboot: Power down"]
missing = [w for w in wanted if w not in console]
if rc != 0 or missing:
    fail(f"the stop boot ended with {rc}, missing {missing}:\n    {tail(console)}")
else:
    ok("stop: PID 1 stopped the node (status 0), flushed /data and powered off")

print(f"image_test: {'FAILED' if FAILURES else 'passed'} ({len(FAILURES)} failures)")
sys.exit(1 if FAILURES else 0)
