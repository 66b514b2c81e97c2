#!/usr/bin/env python3
"""wasm tool calls through a running node (docs/tools.md).

  tests/volent/sealed_tools_test.py --volent BIN --ampoule BIN --verify BIN --modules DIR

DIR holds the tool modules built by tests/volent/tool.cmake: the example
refund_policy.wasm and the hostile spin.wasm, hog.wasm, not_json.wasm and
bad_utf8.wasm. The
script signs them with a fresh author key (`volent tool sign`), adds them to
a node's store (`volent tool add`), applies an agent whose model (the mock,
scripted) calls each tool once, and checks that:
  - refund_policy answers its JSON result, with a receipt signed by the
    node's key (DATA/node.key.pub) that `ampoule-verify` accepts, and that
    replays off the node from the module and the recorded stdin; the
    receipt with its result altered is FAILED;
  - a manifest naming a tool the store lacks is refused (422 at its component);
  - spin ends on its fuel limit, hog on its memory limit, not_json as a
    failed call that says the output is not JSON, bad_utf8's stderr with its
    bytes replaced; the run goes on and finishes;
  - after the module is changed inside the store, the next call is refused;
  - after a tool is removed (node stopped), the restarted node lists the
    agent as rejected and says why.

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries, a kernel or the modules.
"""
import argparse, base64, json, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import kernel_or_skip, skip_unless_runs  # noqa: E402
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="wasm tool calls through `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
parser.add_argument("--verify", required=True, metavar="BIN")
parser.add_argument("--modules", required=True, metavar="DIR")
opts = parser.parse_args()
skip_unless_runs(opts.volent, "node", "mock-model", "tool")
KERNEL = kernel_or_skip(opts.ampoule)
WASM_TOOLS = ["refund_policy", "spin", "hog", "not_json", "bad_utf8"]
for name in WASM_TOOLS:
    if not os.path.isfile(os.path.join(opts.modules, name + ".wasm")):
        skip(f"no {name}.wasm in {opts.modules} (built by tests/volent/tool.cmake; needs clang-14 and wasi-libc)")

# The same policy in Python (the shipped example) and a JavaScript tool, on the kernel's runtimes.
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROGRAMS = {"refund_py": (os.path.join(ROOT, "examples/tools/refund_policy.py"), "python"),
            "word_count": (os.path.join(ROOT, "tests/volent/tools/word_count.js"), "js")}
TOOLS = WASM_TOOLS + list(PROGRAMS)
KIND = dict({name: "wasm" for name in WASM_TOOLS}, **{name: kind for name, (_, kind) in PROGRAMS.items()})


def source_of(name):
    return PROGRAMS[name][0] if name in PROGRAMS else os.path.join(opts.modules, name + ".wasm")


WORK = work_folder("volent-sealed-")
DATA = os.path.join(WORK, "data")
check = Checks(numbered=True)
STARTED = 0


def start(args, name, listening):
    global STARTED
    STARTED += 1
    return start_server([opts.volent] + args, os.path.join(WORK, f"{name}.{STARTED}.stderr"), listening)




def run_cmd(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


# --- the author's key, the node's configuration, the store -----------------------------------------
run_cmd(opts.ampoule, "keygen", "-o", os.path.join(WORK, "author.key"))
with open(os.path.join(WORK, "author.key.pub")) as f:
    author_public = f.read().split()[-1]

script = os.path.join(WORK, "script.json")
ARGS = {"amount_cents": 12000, "days_since_delivery": 3, "opened": True}
with open(script, "w") as f:
    json.dump([{"tool_calls": [{"name": "refund_policy", "arguments": ARGS}]},
               {"tool_calls": [{"name": "spin"}]},
               {"tool_calls": [{"name": "hog"}]},
               {"tool_calls": [{"name": "not_json"}]},
               {"tool_calls": [{"name": "bad_utf8"}]},
               {"tool_calls": [{"name": "refund_py", "arguments": ARGS}]},
               {"tool_calls": [{"name": "word_count", "arguments": {"text": "the cat and The dog"}}]},
               {"text": "done"}], f)
MOCK_PORT = start(["mock-model", "--listen", "127.0.0.1:0", "--script", script], "mock-model",
                  VOLENT_MOCK_MODEL).port
config = write_mock_config(WORK, MOCK_PORT, tool_keys=[("author", author_public)])

digests = {}
for name in TOOLS:
    module = source_of(name)
    sig = os.path.join(WORK, name + ".sig")
    signed = run_cmd(opts.volent, "tool", "sign", module, "--key", os.path.join(WORK, "author.key"), "-o", sig)
    added = run_cmd(opts.volent, "tool", "add", module, "--sig", sig, "--config", config)
    check(f"{name}: signed and added", signed.returncode == 0 and added.returncode == 0,
          signed.stderr + added.stdout + added.stderr)
    digests[name] = added.stdout.split()[1] if added.returncode == 0 else "sha256:" + "0" * 64
digests["missing"] = "sha256:" + "ab" * 32

node = start(["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA], "node", VOLENT_NODE)
PORT = node.port
check("the node made its key", os.path.isfile(os.path.join(DATA, "node.key"))
      and os.path.isfile(os.path.join(DATA, "node.key.pub")), os.listdir(DATA))

limits = {"refund_policy": "{memory_mb: 32, fuel: 200000000, time_ms: 20000}",
          "spin": "{memory_mb: 16, fuel: 50000000, time_ms: 20000}",
          "hog": "{memory_mb: 16, fuel: 2000000000, time_ms: 20000}",
          "not_json": "{memory_mb: 16, fuel: 50000000, time_ms: 20000}",
          "bad_utf8": "{memory_mb: 16, fuel: 50000000, time_ms: 20000}",
          "missing": "{memory_mb: 16, fuel: 50000000, time_ms: 20000}",
          "refund_py": "{memory_mb: 256, fuel: 20000000000, time_ms: 60000}",
          "word_count": "{memory_mb: 128, fuel: 5000000000, time_ms: 60000}"}


def manifest_of(names, kind_of=None):
    kinds = dict(KIND, missing="wasm", **(kind_of or {}))
    tools_yaml = "".join(f"""    - name: {name}
      description: tool {name}
      kind: {kinds[name]}
      component: {digests[name]}
      limits: {limits[name]}
""" for name in names)
    return f"""apiVersion: volent/v1
kind: Agent
metadata:
  name: clerk
spec:
  model:
    provider: openai-compatible
    name: mock
    endpoint: http://127.0.0.1:{MOCK_PORT}/v1
    capability: model.mock
  tools:
{tools_yaml}"""


def start_run(run_id):
    s, body = request(PORT, "POST", "/v1/agents/clerk/runs", json.dumps({"id": run_id}), "application/json")
    check(f"{run_id}: starts", s == 201, f"HTTP {s} {body}")
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        s, run = request(PORT, "GET", f"/v1/agents/clerk/runs/{run_id}")
        if s != 200 or run.get("status") in ("finished", "failed"):
            break
        time.sleep(0.2)
    check(f"{run_id}: finishes", s == 200 and run.get("status") == "finished", f"HTTP {s} {run}")
    return completions(run_id)


def completions(run_id):
    """The tool completions of the run, by tool name, from the journal."""
    found, after = {}, 0
    while True:
        s, page = request(PORT, "GET", f"/v1/journal?after={after}&limit=1000")
        if s != 200:
            return found
        for e in page["entries"]:
            payload = e.get("payload") or {}
            if e.get("kind") == "completion" and str(e.get("key", "")).startswith(f"clerk/{run_id}/") \
                    and payload.get("type") == "tool":
                found[payload["tool"]] = payload
        if page.get("next") is None:
            return found
        after = page["next"]


# --- the tool store over the control API ------------------------------------------------------------
s, listed = request(PORT, "GET", "/v1/tools")
check("GET /v1/tools lists the added tools, each checked, with its signer",
      s == 200 and sorted(t.get("digest") for t in listed.get("tools", [])) == sorted(digests[n] for n in TOOLS)
      and all(t.get("signer") == "author" for t in listed["tools"]), f"HTTP {s} {str(listed)[:300]}")
with open(os.path.join(opts.modules, "not_json.wasm"), "rb") as f:
    not_json_bytes = f.read()
with open(os.path.join(WORK, "not_json.sig")) as f:
    not_json_sig = json.load(f)
s, body = request(PORT, "POST", "/v1/tools", json.dumps({"tool": base64.b64encode(not_json_bytes).decode(),
                                                         "signature": not_json_sig}), "application/json")
check("POST /v1/tools of a stored tool: 200, the tool", s == 200 and body.get("digest") == digests["not_json"],
      f"HTTP {s} {str(body)[:300]}")
s, body = request(PORT, "POST", "/v1/tools", json.dumps({"tool": base64.b64encode(not_json_bytes + b"\0").decode(),
                                                         "signature": not_json_sig}), "application/json")
check("POST /v1/tools of a changed module: 422, the digest named",
      s == 422 and "the file was changed" in str(body.get("detail", "")), f"HTTP {s} {str(body)[:300]}")
s, body = request(PORT, "POST", "/v1/tools", json.dumps({"tool": "not base64!", "signature": []}), "application/json")
check("POST /v1/tools with a bad body: 422 at both fields",
      s == 422 and {e.get("pointer") for e in body.get("errors", [])} == {"/tool", "/signature"},
      f"HTTP {s} {str(body)[:300]}")

s, body = request(PORT, "POST", "/v1/agents", manifest_of(TOOLS + ["missing"]), "application/yaml")
check("a manifest naming a tool the store lacks is refused at its component", s == 422
      and any(e.get("pointer") == f"/spec/tools/{len(TOOLS)}/component" and "holds no tool" in e.get("detail", "")
              for e in (body or {}).get("errors", [])), f"HTTP {s} {body}")
s, body = request(PORT, "POST", "/v1/agents", manifest_of(TOOLS, {"refund_py": "wasm"}), "application/yaml")
check("a manifest naming a python tool as wasm is refused at its component", s == 422
      and any(e.get("pointer") == f"/spec/tools/{TOOLS.index('refund_py')}/component"
              and "signed as a python tool" in e.get("detail", "")
              for e in (body or {}).get("errors", [])), f"HTTP {s} {body}")
s, body = request(PORT, "POST", "/v1/agents", manifest_of(TOOLS), "application/yaml")
check("the agent applies", s == 201, f"HTTP {s} {body}")
done = start_run("r1")

answer = done.get("refund_policy", {})
check("refund_policy answers its result", answer.get("outcome") == "answered"
      and answer.get("result") == {"refundable_cents": 10800, "rule": "restocking-fee"}, str(answer)[:600])
check("spin ends on its fuel limit, as a failed call", done.get("spin", {}).get("outcome") == "failed"
      and done["spin"].get("stop") == "fuel" and "fuel" in done["spin"].get("reason", ""), str(done.get("spin"))[:400])
check("hog ends on its memory limit, as a failed call", done.get("hog", {}).get("outcome") == "failed"
      and done["hog"].get("stop") == "memory", str(done.get("hog"))[:400])
check("not_json is a failed call that says why", done.get("not_json", {}).get("outcome") == "failed"
      and "not JSON" in done["not_json"].get("reason", ""), str(done.get("not_json"))[:400])
check("a tool that fails with bytes that are not UTF-8 is journaled, the bytes replaced",
      done.get("bad_utf8", {}).get("outcome") == "failed"
      and "exited with status 3: bad_utf8: \ufffd" in done["bad_utf8"].get("reason", ""),
      str(done.get("bad_utf8"))[:400])
check("the Python tool gives the C tool's answer, on the kernel's CPython",
      done.get("refund_py", {}).get("outcome") == "answered" and done["refund_py"].get("result") == answer.get("result"),
      str(done.get("refund_py"))[:400])
check("the JavaScript tool answers, on the kernel's QuickJS", done.get("word_count", {}).get("outcome") == "answered"
      and done["word_count"].get("result") == {"words": 5, "distinct": 4}, str(done.get("word_count"))[:400])
check("every call that ran has a receipt", all("receipt" in done.get(n, {}) for n in TOOLS), str(done)[:300])

# --- the run's tool calls and the receipt through the control API ----------------------------------
s, run = request(PORT, "GET", "/v1/agents/clerk/runs/r1")
calls = {c.get("tool"): c for c in (run or {}).get("tool_calls", [])} if s == 200 else {}
check("GET of the run lists its tool calls with their outcomes",
      set(calls) == set(TOOLS) and calls["refund_policy"].get("outcome") == "answered"
      and calls["spin"].get("outcome") == "failed", f"HTTP {s} {str(run)[:600]}")
refund_call = calls.get("refund_policy", {})
s, served = request(PORT, "GET", refund_call.get("receipt", "/v1/none"))
check("the call's receipt is served at the path the run names, as journaled",
      s == 200 and served == answer.get("receipt"), f"HTTP {s} {str(served)[:300]}")
s, _ = request(PORT, "GET", "/v1/agents/clerk/runs/r1/steps/1/receipt")
check("a step that is not a sealed tool call has no receipt: 404", s == 404, f"HTTP {s}")
s, _ = request(PORT, "GET", "/v1/agents/clerk/runs/r1/steps/0/receipt")
check("step 0 is a bad request: 400", s == 400, f"HTTP {s}")

# --- the receipt, off the node ----------------------------------------------------------------------
node_pub = os.path.join(DATA, "node.key.pub")
receipt = os.path.join(WORK, "refund.receipt.json")
with open(receipt, "w") as f:
    json.dump(served if isinstance(served, dict) else {}, f)
stdin = os.path.join(WORK, "refund.stdin")
with open(stdin, "w") as f:
    f.write(refund_call.get("stdin", ""))
module = os.path.join(opts.modules, "refund_policy.wasm")
v = run_cmd(opts.verify, receipt, "--key", node_pub, "--kernel", KERNEL, "--program", module, "--stdin", stdin)
check("ampoule-verify accepts the call's receipt with the module and its stdin", v.returncode == 0,
      v.stdout + v.stderr)
r = run_cmd(opts.verify, "--replay", receipt, "--kernel", KERNEL, "--key", node_pub, "--program", module,
            "--stdin", stdin)
check("the call replays off the node", r.returncode == 0 and "REPLAY OK" in r.stdout, r.stdout + r.stderr)
result_file = os.path.join(WORK, "result.json")
with open(result_file, "w") as f:
    f.write('{"refundable_cents": 12000, "rule": "full"}\n')
a = run_cmd(opts.verify, receipt, "--key", node_pub, "--output", result_file)
check("a different result is FAILED against the receipt", a.returncode == 1 and "FAILED" in a.stdout,
      a.stdout + a.stderr)

# --- a module changed inside the store, and one removed ----------------------------------------------
stored = os.path.join(DATA, "tools", digests["refund_policy"][7:], "tool")
os.chmod(stored, 0o644)
with open(stored, "ab") as f:
    f.write(b"\0")
done = start_run("r2")
check("a module changed in the store is refused at load", done.get("refund_policy", {}).get("outcome") == "failed"
      and "changed" in done["refund_policy"].get("reason", "") and "receipt" not in done["refund_policy"],
      str(done.get("refund_policy"))[:400])

node.stop()
removed = run_cmd(opts.volent, "tool", "remove", digests["spin"], "--config", config, "--data-dir", DATA)
check("a tool is removed while the node is stopped", removed.returncode == 0, removed.stdout + removed.stderr)
node = start(["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA], "node", VOLENT_NODE)
PORT = node.port
s, agent = request(PORT, "GET", "/v1/agents/clerk")
check("after a restart, the agent whose tools are no longer all usable is rejected, not dropped",
      s == 200 and agent.get("status") == "rejected", f"HTTP {s} {str(agent)[:300]}")
check("... and the node says why on stderr", "tool store holds no tool " + digests["spin"] in node.stderr()
      and "/spec/tools/1/component" in node.stderr(), node.stderr()[-800:])
node.stop()
check.finish("sealed tools: ")
