#!/usr/bin/env python3
"""The operator guide's examples, run as written against a node.

  tests/volent/doc_examples_test.py --volent BIN --ampoule BIN --modules DIR [--doc FILE]

Every ```sh block of docs/operator-guide.md runs, in order, in one bash
session (`set -euo pipefail`, so variables and functions carry from block to
block) in a folder holding a copy of examples/node, as the guide's
introduction says. The test stands in for the operator's machine only where
the guide names it:
  - `/srv` is a folder of the test's own, `127.0.0.1:8470` the port
    the node listens on, `~` a home folder of the test's own;
  - the node runs as section 3 starts it, on `/srv/volent/data`; the example
    agent's model is a `volent mock-model` (its endpoint and capability in
    the copy of agents/refund.agent.yaml and volent.yaml), and its wasm tool
    (refund_policy, built by tests/volent/tool.cmake) is in the tool store;
  - `curl` fails on an answer of 400 or above (`--fail-with-body`), so an
    example that is refused (a missing token, a wrong route) fails the test.
An HTML comment just before a block steers the test:
  <!-- doc-test: skip REASON -->   the block is not run; REASON is printed
  <!-- doc-test: node tls -->      the node restarts with `control: {auth:
                                   tokens+mtls, tls: {}}` before the block
  <!-- doc-test: node plain -->    the node restarts without TLS
  <!-- doc-test: until COMMAND --> COMMAND (in the session) is retried for up
                                   to 60 s before the block: the guide's
                                   "once the run waits for its approval"
Prints `ok N: ...`/`FAIL N: ...` per block; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries, curl or jq.
"""
import argparse, base64, os, re, select, shutil, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, start_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
parser = argparse.ArgumentParser(description="Run the operator guide's examples against a node.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--modules", required=True, metavar="DIR", help="the example tools' modules (build/tool-modules)")
parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "operator-guide.md"))
args = parser.parse_args()
skip_unless_runs(args.volent, "node")
skip_unless_runs(args.ampoule, "keygen")
for tool in ("curl", "jq"):
    if not shutil.which(tool):
        skip(f"{tool} is not installed (scripts/setup.sh installs it)")
MODULE = os.path.join(args.modules, "refund_policy.wasm")
if not os.path.isfile(MODULE):
    skip(f"{MODULE} is not built (tests/volent/tool.cmake builds it with clang and wasi-libc)")

NODE_LINE = re.compile(r"^volent node: listening on https?://(?P<host>[^:/\s]+):(?P<port>\d+)$", re.M)
DIRECTIVE = re.compile(r"^<!-- doc-test: (?P<verb>skip|node|until) ?(?P<rest>.*?) -->$")
BLOCK_TIMEOUT = 120
WORK = work_folder("volent-docs-", keep=bool(os.environ.get("AMPOULE_KEEP_WORK")))
SRV, HOME, FOLDER = (os.path.join(WORK, n) for n in ("srv", "home", "node"))
DATA = os.path.join(SRV, "volent", "data")
for d in (HOME, os.path.dirname(DATA)):
    os.makedirs(d)
check = Checks(numbered=True)


def blocks(doc):
    """(line, directive or None, text) for each ```sh block of `doc`."""
    lines = open(doc, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            before = lines[start - 2].strip() if start >= 2 else ""
            m = DIRECTIVE.match(before)
            out.append((start, (m.group("verb"), m.group("rest")) if m else None, "\n".join(body)))
        i += 1
    return out


def prepare_folder(mock_port):
    """The copy of examples/node the guide works in, its model the mock."""
    shutil.copytree(os.path.join(ROOT, "examples", "node"), FOLDER,
                    ignore=shutil.ignore_patterns("data"))
    config = os.path.join(FOLDER, "volent.yaml")
    text = open(config).read()
    mock_entry = (f"    - capability: model.mock\n      scheme: http\n      cidr: 127.0.0.1/32\n"
                  f"      port: {mock_port}\n      methods: [POST]\n")
    assert "  allow:\n" in text
    text = text.replace("  allow:\n", "  allow:\n" + mock_entry, 1) + \
        "model_keys:\n  - capability: model.mock\n    key_file: mock.key\n"
    open(config, "w").write(text)
    with open(os.open(os.path.join(FOLDER, "mock.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("mock-key\n")
    agent = os.path.join(FOLDER, "agents", "refund.agent.yaml")
    text = open(agent).read()
    assert "    capability: model.anthropic\n" in text
    open(agent, "w").write(text.replace(
        "    capability: model.anthropic\n",
        f"    endpoint: http://127.0.0.1:{mock_port}\n    capability: model.mock\n", 1))
    tls = open(config).read() + "control:\n  auth: tokens+mtls\n  tls: {}\n"
    open(os.path.join(FOLDER, "volent-tls.yaml"), "w").write(tls)


def add_example_tool():
    """refund_policy in the store, signed by the examples' key (RFC 8032's
    test key 1, whose secret is public: examples only)."""
    key = os.path.join(WORK, "rfc8032-test-key-1")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("ed25519-secret " + base64.b64encode(bytes.fromhex(
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")).decode() + "\n")
    sig = os.path.join(WORK, "refund_policy.sig")
    for argv in ([args.volent, "tool", "sign", MODULE, "--key", key, "-o", sig],
                 [args.volent, "tool", "add", MODULE, "--sig", sig, "--config", os.path.join(FOLDER, "volent.yaml"),
                  "--data-dir", DATA]):
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            check(f"setup: {' '.join(argv[1:3])}", False, r.stdout + r.stderr)
            sys.exit(check.finish())


class Node:
    def __init__(self):
        self.server, self.tls = None, False

    def start(self, tls):
        if self.server:
            self.server.stop()
        self.tls = tls
        config = os.path.join(FOLDER, "volent-tls.yaml" if tls else "volent.yaml")
        self.server = start_server([args.volent, "node", "--config", config, "--listen", "127.0.0.1:0",
                                    "--data-dir", DATA], os.path.join(WORK, f"node-{time.monotonic_ns()}.log"),
                                   NODE_LINE, timeout=60)

    def localise(self, text):
        """The guide's names for the operator's machine, made this test's."""
        return text.replace("/srv/", SRV + "/").replace("127.0.0.1:8470", f"127.0.0.1:{self.server.port}")


class Session:
    """One bash that runs block after block; a block ends with a marker line."""

    MARK = "__doc_block_done__"

    def __init__(self):
        env = dict(os.environ, HOME=HOME, LC_ALL="C",
                   PATH=os.pathsep.join([os.path.dirname(os.path.abspath(args.volent)),
                                         os.path.dirname(os.path.abspath(args.ampoule)), os.environ["PATH"]]))
        env.pop("VOLENT_TOKEN", None)
        env.pop("VOLENT_TOKEN_FILE", None)
        self.proc = subprocess.Popen(["bash", "--norc", "--noprofile"], cwd=FOLDER, env=env, bufsize=0,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.run("curl() { command curl --fail-with-body \"$@\"; }")

    def run(self, text, strict=True):
        """(ok, output) of `text`; with strict, the session ends at a failure."""
        script = ("set -euo pipefail\n" if strict else "set +e\n") + "{\n" + text + "\n} </dev/null\n" + \
            ("" if strict else "rc=$?; set -e; [ $rc = 0 ] || echo __doc_block_failed__\n") + f"echo; echo {self.MARK}\n"
        self.proc.stdin.write(script.encode())
        self.proc.stdin.flush()
        # Raw reads of the pipe, not a buffered reader: select() cannot see
        # what a reader has buffered already.
        out, deadline, fd = b"", time.monotonic() + BLOCK_TIMEOUT, self.proc.stdout.fileno()
        mark = self.MARK.encode() + b"\n"
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return False, out.decode(errors="replace") + f"(the shell ended: exit {self.proc.wait()})"
            out += chunk
            if out.endswith(mark):
                text_out = out[:-len(mark)].decode(errors="replace")
                return "__doc_block_failed__" not in text_out, text_out
        return False, out.decode(errors="replace") + f"(no end after {BLOCK_TIMEOUT} s)"


mock = start_server([args.volent, "mock-model", "--listen", "127.0.0.1:0"], os.path.join(WORK, "mock.log"),
                    VOLENT_MOCK_MODEL)
prepare_folder(mock.port)
add_example_tool()
node = Node()
node.start(tls=False)
shell = Session()
doc = os.path.relpath(args.doc, ROOT)
for line, directive, text in blocks(args.doc):
    name = f"{doc}:{line}: {text.splitlines()[0][:70]}"
    if directive and directive[0] == "skip":
        print(f"skip: {name}: {directive[1]}")
        continue
    if directive and directive[0] == "node":
        node.start(tls=directive[1] == "tls")
    if directive and directive[0] == "until":
        deadline, ready = time.monotonic() + 60, False
        while not ready and time.monotonic() < deadline:
            ready, last = shell.run(node.localise(directive[1]), strict=False)
            ready or time.sleep(0.5)
        if not ready:
            check(name, False, f"waited 60 s for: {directive[1]}; its last output: {last[-1500:]}; "
                               f"the node's: {node.server.tail(20)}")
            break
    ok, output = shell.run(node.localise(text))
    check(name, ok, output[-3000:])
    if not ok:
        print("the later blocks build on this one: stopping", file=sys.stderr)
        break
node.server.stop()
sys.exit(check.finish())
