#!/usr/bin/env python3
"""Egress denials from the outside (docs/egress.md): a tool call the
gate refuses is journaled and listed by GET /v1/egress/denials.

  tests/volent/denials_api_test.py --volent BIN

Starts `volent mock-model` (the model: its default plan calls each tool
once) and `volent node` with an allowlist where the tool's capability has
the entry `host: "*"`, which never reaches a link-local address. The
agent's one HTTP tool asks for http://169.254.169.254/latest/meta-data/
(the cloud metadata address); the script starts a run, waits for it to
end, and checks that:
  - GET /v1/egress/denials lists the denial under the tool step's key,
    with its capability, method, URL, reason, hop 0 and origin, and the
    agent and capability filters find it;
  - GET /v1/journal holds an egress-denied entry with that key;
  - after SIGTERM and a restart on the same data folder it is still listed.

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binary or its commands.
"""
import argparse, json, os, re, signal, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.node_config import write_mock_config  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="Egress denials through the control API of `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
VOLENT = parser.parse_args().volent
skip_unless_runs(VOLENT, "node", "mock-model")

WORK = work_folder("volent-denials-")
METADATA_URL = "http://169.254.169.254/latest/meta-data/"
AGENT, RUN = "prober", "probe-1"
check = Checks(numbered=True)
STARTED = 0  # servers started, to name their stderr files


def start(args, name, listening):
    """Starts `volent ARGS` and waits for its listening line; the Server."""
    global STARTED
    STARTED += 1
    return start_server([VOLENT] + args, os.path.join(WORK, f"{name}.{STARTED}.stderr"), listening)




# --- the model, the configuration, the node -------------------------------------------------------
MOCK_PORT = start(["mock-model", "--listen", "127.0.0.1:0"], "mock-model", VOLENT_MOCK_MODEL).port
config = write_mock_config(WORK, MOCK_PORT, allow="""    - capability: cloud
      scheme: http
      host: "*"
""")
DATA = os.path.join(WORK, "data")
NODE_ARGS = ["node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA]
node = start(NODE_ARGS, "node", VOLENT_NODE)
PORT = node.port

manifest = f"""apiVersion: volent/v1
kind: Agent
metadata:
  name: {AGENT}
spec:
  model:
    provider: openai-compatible
    name: mock
    endpoint: http://127.0.0.1:{MOCK_PORT}/v1
    capability: model.mock
  tools:
    - name: metadata
      description: Reads the cloud metadata service.
      kind: http
      capability: cloud
      http:
        method: GET
        url: {METADATA_URL}
"""
s, body = request(PORT, "POST", "/v1/agents", manifest, "application/yaml")
check("the agent applies", s == 201, f"HTTP {s} {body}")
s, body = request(PORT, "POST", f"/v1/agents/{AGENT}/runs", json.dumps({"id": RUN}), "application/json")
check("a run starts", s == 201, f"HTTP {s} {body}")
run = body
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    s, run = request(PORT, "GET", f"/v1/agents/{AGENT}/runs/{RUN}")
    if s != 200 or run.get("status") in ("finished", "failed"):
        break
    time.sleep(0.1)
check("the run ends", s == 200 and run.get("status") in ("finished", "failed"), f"HTTP {s} {run}")


# --- the denial ------------------------------------------------------------------------------------
def ours(query=""):
    s, page = request(PORT, "GET", "/v1/egress/denials" + query)
    if s != 200 or not isinstance(page, dict):
        return s, page, []
    return s, page, [d for d in page.get("denials", []) if d.get("agent") == AGENT and d.get("run") == RUN]


def check_listed(when):
    s, page, found = ours()
    check(f"{when}: GET /v1/egress/denials answers 200 with denials and next",
          s == 200 and isinstance(page, dict) and isinstance(page.get("denials"), list) and "next" in page,
          f"HTTP {s} {str(page)[:300]}")
    if not check(f"{when}: the run's tool call is listed, once", len(found) == 1,
                 f"{len(found)} of the run's denials in {str(page)[:600]}; node stderr: "
                 + node.stderr()[-600:]):
        return None
    d = found[0]
    key = f"{AGENT}/{RUN}/{d.get('step')}"
    check(f"{when}: under the tool step's key", d.get("key") == key and isinstance(d.get("step"), int)
          and d["step"] >= 1 and d.get("origin") == key, str(d))
    check(f"{when}: with its capability, method, URL, hop and reason",
          d.get("capability") == "cloud" and d.get("method") == "GET" and d.get("url") == METADATA_URL
          and d.get("hop") == 0 and isinstance(d.get("reason"), str) and d["reason"] != "", str(d))
    check(f"{when}: with an RFC 3339 time and its journal seq",
          re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", str(d.get("time"))) is not None
          and isinstance(d.get("seq"), int) and d["seq"] >= 1, str(d))
    return d


denial = check_listed("before a restart")
if denial:
    for query in (f"?agent={AGENT}", "?capability=cloud", "?order=oldest&limit=1000"):
        s, page, found = ours(query)
        check(f"the filter {query} finds it", s == 200 and [d.get("seq") for d in found] == [denial["seq"]],
              f"HTTP {s} {str(page)[:300]}")
    s, page, found = ours("?capability=model.mock")
    check("the filter ?capability=model.mock does not", s == 200 and found == [], f"HTTP {s} {str(page)[:300]}")
    s, journal = request(PORT, "GET", f"/v1/journal?after={denial['seq'] - 1}&limit=1")
    entries = journal.get("entries", []) if isinstance(journal, dict) else []
    check("GET /v1/journal holds it as an egress-denied entry with its key",
          s == 200 and len(entries) == 1 and entries[0].get("kind") == "egress-denied"
          and entries[0].get("key") == denial["key"] and entries[0].get("payload", {}).get("url") == METADATA_URL,
          f"HTTP {s} {str(journal)[:400]}")
s, page = request(PORT, "GET", "/v1/egress/denials?order=sideways")
check("a bad order is 400", s == 400, f"HTTP {s} {page}")

# --- a restart -------------------------------------------------------------------------------------
status = node.stop(signal.SIGTERM, 30)
check("SIGTERM stops the node with status 0", status == 0, f"status {status}")
node = start(NODE_ARGS, "node", VOLENT_NODE)
PORT = node.port
after = check_listed("after a restart")
if denial and after:
    check("after a restart: the same entry", after == denial, f"{after} != {denial}")

check.finish()
