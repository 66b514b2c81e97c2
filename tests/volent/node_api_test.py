#!/usr/bin/env python3
"""`volent node` from the outside: every route of the control API
(docs/control-api.md) over real sockets, bad clients, restarts and
SIGKILL in the middle of applies.

  tests/volent/node_api_test.py --volent BIN [--config volent.yaml] [--agent A.agent.yaml]

Starts `volent mock-model --listen 127.0.0.1:0` (the agents' model: the
fixtures name it at 127.0.0.1:8480, capability model.mock; the
configurations and the agent template are used with its real port and a
key file), then `volent node --config CFG --listen 127.0.0.1:0 --data-dir
TMP` (CFG: tests/volent/fixtures/volent.yaml unless given), reads the port from
its one `volent node: listening on http://HOST:PORT` line on stderr and
drives it with python3's http.client and raw sockets (tests/harness/):
  - apply (YAML and JSON bodies, 201 then 200 with generation 2, Location),
    get, list with paging (limit, after, next), delete (204, then 404), the
    1 MiB body limit on both sides of the line;
  - invalid manifests (422 with errors carrying pointer, line and column),
    a capability with no allowlist entry (422), malformed JSON and YAML
    (400), other content types (415), a 2 MiB body (413, announced and
    chunked), unknown paths (404), wrong methods (405 with Allow), the
    attestation report (200, 400 without a nonce), bad query parameters
    and names (400);
  - runs (start with an id: 201 then 200, get, list), approvals (the run's
    tool call pending, approved, a second decision 409; an unknown id 404,
    a decision without `by` 422) and the journal (a page with its digest,
    the run's start and the approval journaled); after a restart the run
    and the journal are still there;
  - /healthz, /metrics (parsed as Prometheus text 0.0.4), /openapi.json and
    the schemas; every path and method of the OpenAPI document answered by
    a route, with a status the document lists;
  - every error is application/problem+json with type, title, status,
    detail and instance; no body or header names the implementation;
  - HTTP/1.0, Connection: close and pipelined requests; request counters
    that add up; only validation problems carry `errors`;
  - bad clients: half a request then silence (closed by the node's read
    timeout while others are served), a request dribbled byte by byte, a
    client that half-closes after a whole request (answered) or after half
    of one (not answered), many connections at once, more connections than
    the limit, garbage bytes, an endless header; after each the node still
    serves /healthz;
  - SIGTERM ends the node with status 0; a restart on the same data folder
    serves the same agents and generations; an agent whose capability left
    the allowlist is listed `rejected`; SIGKILL in the middle of a loop of
    applies and deletes loses nothing that was answered 2xx; a data folder
    that cannot grow (RLIMIT_FSIZE, as a full disk) gives 500 internal
    without a trace of the failed write;
  - every manifest of examples/node/agents applies to a node with
    examples/node/volent.yaml, once the example tools (examples/tools/,
    built into --modules) are signed with the example's tool key (RFC 8032
    test key 1) and added to its store; before that, the manifests with a
    wasm tool are refused (422 at the tool's component).

The agent template (--agent, default tests/volent/fixtures/agent.yaml)
must be valid for the configuration and have at least one tool with a
capability; the script renames it (metadata.name) to make more agents.

Prints `ok N: ...`/`FAIL N: ...` per check and a summary; exit 1 on any
failure; `skipped: REASON` (exit 0) without the binary.
"""
import argparse, base64, http.client, json, os, random, re, resource, signal, socket, subprocess, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks, fail  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import auth_line, json_body as jbody, raw_exchange, raw_status, request as http_request, token_for  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description="`volent node` from the outside: the control API over real sockets.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--config", metavar="volent.yaml", help="default: tests/volent/fixtures/volent.yaml")
parser.add_argument("--agent", metavar="A.agent.yaml", help="default: tests/volent/fixtures/agent.yaml")
parser.add_argument("--modules", metavar="DIR",
                    help="the example tool modules (tests/volent/tool.cmake builds them into build/tool-modules)")
args = parser.parse_args()
VOLENT = args.volent
skip_unless_runs(VOLENT, "node")
# The rejected-on-restart check needs a configuration without the second
# capability: only the fixture pair has one.
CONFIG, CONFIG_WITHOUT = args.config, ""
if not CONFIG:
    CONFIG = os.path.join(HERE, "fixtures", "volent.yaml")
    CONFIG_WITHOUT = os.path.join(HERE, "fixtures", "volent-without-ledger.yaml")
AGENT_FILE = args.agent or os.path.join(HERE, "fixtures", "agent.yaml")
for f in (CONFIG, AGENT_FILE):
    if not os.path.isfile(f):
        fail(f"{f} not found")
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "node")
WORK = work_folder("volent-node-api-")
DATA = os.path.join(WORK, "data")
HOST = "127.0.0.1"
PORT = 0
NODE = None          # the running Server
RUN = 0              # how many times the node was started
check = Checks(numbered=True)
note = check.note
T0 = time.monotonic()
random.seed(20261130)

# Raise our own descriptor limit: the connection-limit check opens >1,024.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


# --- the mock model: the agents' model ---------------------------------------
# The fixtures name the mock at 127.0.0.1:8480 (model.mock); the mock started
# here listens on a free port, and the configurations and the agent template
# are used with that port put in, and the mock's key file in model_keys.
MOCK_KEY = "sk-node-api-mock"
MOCK_PORT = start_server([VOLENT, "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
                         os.path.join(WORK, "mock-model.stderr"), VOLENT_MOCK_MODEL).port
MOCK_KEY_FILE = os.path.join(WORK, "model-mock.key")
with open(os.open(MOCK_KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as _f:
    _f.write(MOCK_KEY + "\n")


def with_mock(text):
    """`text` (a configuration or a manifest) with the mock's port."""
    return text.replace("127.0.0.1:8480", f"127.0.0.1:{MOCK_PORT}").replace("port: 8480", f"port: {MOCK_PORT}")


def config_with_mock(path):
    """A copy of the configuration at `path`, in WORK, with the mock's port
    and (when it allows model.mock) the mock's key file."""
    text = with_mock(open(path, encoding="utf-8").read())
    if "capability: model.mock" in text and "model_keys:" not in text:
        text += f"\nmodel_keys:\n  - capability: model.mock\n    key_file: {MOCK_KEY_FILE}\n"
    out = os.path.join(WORK, "with-mock." + os.path.basename(path))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


CONFIG = config_with_mock(CONFIG)
if CONFIG_WITHOUT:
    CONFIG_WITHOUT = config_with_mock(CONFIG_WITHOUT)



# --- the node process ---------------------------------------------------------
def start_node(config=CONFIG, data=DATA, max_file_bytes=None):
    """Starts the node on port 0 and waits for its listening line; how many
    listening lines its stderr holds. With max_file_bytes, the node cannot
    grow a file beyond that (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with
    EFBIG), as on a full disk."""
    global NODE, PORT, HOST, RUN
    RUN += 1

    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    NODE = start_server([VOLENT, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", data],
                        os.path.join(WORK, f"stderr.{RUN}"), VOLENT_NODE, limits=limit_files if max_file_bytes else None)
    HOST, PORT = NODE.host, NODE.port
    return len(VOLENT_NODE.findall(NODE.stderr()))


def stop_node(sig=signal.SIGTERM, timeout=30):
    """Sends `sig` and waits; the exit status (-9 if it had to be killed)."""
    global NODE
    status = NODE.stop(sig, timeout)
    NODE = None
    return status


def stderr_text():
    return NODE.stderr() if NODE else ""


# --- requests ------------------------------------------------------------------
SEEN = []  # (what, status, headers, body) of every answer, for the leak check
ERRORS = []  # (what, status, headers, body) of every 4xx/5xx answer
YAML = "application/yaml"
JSON_T = "application/json"


def request(method, path, body=None, ctype=None, headers=None, conn=None, timeout=20):
    """(status, headers, body) of one request to the node; status 0 when no
    answer came. Every answer is kept for the checks on all of them."""
    h = dict(headers or {})
    if ctype:
        h["Content-Type"] = ctype
    try:
        status, hdrs, payload = http_request(HOST, PORT, method, path, body, h, conn, timeout)
    except (OSError, http.client.HTTPException) as e:
        return 0, {}, f"no answer: {type(e).__name__}".encode()
    SEEN.append((f"{method} {path}", status, hdrs, payload))
    if status >= 400:
        ERRORS.append((f"{method} {path}", status, hdrs, payload))
    return status, hdrs, payload


def short(payload, n=300):
    return repr(payload[:n])


def is_problem(status, hdrs, payload, slug=None):
    """'' if the answer is a problem details document of `status` (and type
    slug), else what is wrong."""
    ctype = hdrs.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/problem+json":
        return f"Content-Type {hdrs.get('content-type')!r}"
    p = jbody(payload)
    if not isinstance(p, dict):
        return f"body is not a JSON object: {short(payload)}"
    for member, kind in (("type", str), ("title", str), ("status", int), ("detail", str), ("instance", str)):
        if not isinstance(p.get(member), kind):
            return f"member {member!r} missing or not a {kind.__name__}: {short(payload)}"
    if p["status"] != status:
        return f"status member {p['status']} != HTTP {status}"
    if not p["type"].startswith("urn:volent:problem:"):
        return f"type {p['type']!r}"
    if slug and p["type"] != f"urn:volent:problem:{slug}":
        return f"type {p['type']!r}, wanted urn:volent:problem:{slug}"
    if not p["title"] or not p["detail"]:
        return "empty title or detail"
    return ""


def expect_problem(name, status, slug, answer, path=None):
    s, h, p = answer
    why = "" if s == status else f"HTTP {s} {short(p)}"
    why = why or is_problem(s, h, p, slug)
    if not why and path is not None:
        inst = jbody(p).get("instance")
        if inst not in (path, path.split("?")[0]):
            why = f"instance {inst!r}, wanted {path!r}"
    return check(name, not why, why)


def healthz():
    try:
        s, h, p = request("GET", "/healthz", timeout=10)
        return s == 200 and (jbody(p) or {}).get("status") == "ok"
    except Exception:
        return False


def alive(after):
    check(f"still serves /healthz after {after}", healthz())

def authed(data):
    """Raw request bytes with the node's token after each request line."""
    return re.sub(rb"( HTTP/1\.[01]\r\n)", lambda m: m.group(1) + auth_line(PORT), data)


def bearer():
    """The Authorization header for http.client calls made here directly."""
    return {"Authorization": f"Bearer {token_for(PORT)}"}


def raw(data, shut=True, timeout=10):
    """Sends bytes on a fresh connection, optionally half-closes, and reads
    until the node closes or `timeout` passes. Returns the bytes read."""
    return raw_exchange(HOST, PORT, data, shut, timeout)


def raw_split(out):
    """(status, headers, body) of the first answer in raw bytes."""
    if not out:
        return None, {}, b""
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", len(body)) or 0)
    return raw_status(out), hdrs, body[:n]


def stream_post(body, chunked=False, ctype="application/yaml"):
    """POSTs `body` to /v1/agents on a raw socket (Content-Length or chunked)
    while another thread reads, so an early answer (413) is seen even if the
    node closes before the whole body is sent. (status, headers, body)."""
    sock = socket.create_connection((HOST, PORT), timeout=20)
    head = f"POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {len(body)}\r\n\r\n"
    reply = []

    def reader():
        data = b""
        try:
            while True:
                c = sock.recv(65536)
                if not c:
                    break
                data += c
                if b"\r\n\r\n" in data:
                    st, hd, bd = raw_split(data)
                    if len(bd) >= int(hd.get("content-length", 0) or 0):
                        break
        except OSError:
            pass
        reply.append(data)

    r = threading.Thread(target=reader)
    r.start()
    try:
        sock.sendall(head.encode())
        for i in range(0, len(body), 65536):
            if not r.is_alive():
                break
            chunk = body[i:i + 65536]
            sock.sendall((f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n") if chunked else chunk)
        if chunked and r.is_alive():
            sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass
    r.join(20)
    sock.close()
    answer = raw_split(reply[0] if reply else b"")
    SEEN.append(("POST /v1/agents (streamed)", answer[0] or 0, answer[1], answer[2]))
    ERRORS.append(("POST /v1/agents (streamed)", answer[0] or 0, answer[1], answer[2]))
    return answer


TWO_MIB = (b"# " + b"x" * 1021 + b"\n") * 2048


# --- manifests -------------------------------------------------------------------
def to_yaml(value, indent=0):
    """Block-style YAML for JSON values (strings as JSON strings, which YAML
    reads the same)."""
    pad = " " * indent
    scalar = lambda v: json.dumps(v, ensure_ascii=False)  # YAML has no surrogate pairs
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{k}:")
                out.append(to_yaml(v, indent + 2))
            else:
                out.append(f"{pad}{k}: {scalar(v) if not isinstance(v, (dict, list)) else ('{}' if isinstance(v, dict) else '[]')}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict) and v:
                inner = to_yaml(v, indent + 2).split("\n")
                out.append(f"{pad}- {inner[0].lstrip()}")
                out.extend(inner[1:])
            elif isinstance(v, list) and v:
                out.append(f"{pad}-")
                out.append(to_yaml(v, indent + 2))
            else:
                out.append(f"{pad}- {scalar(v) if not isinstance(v, (dict, list)) else ('{}' if isinstance(v, dict) else '[]')}")
    return "\n".join(out)


def named(manifest, name):
    m = json.loads(json.dumps(manifest))
    m["metadata"]["name"] = name
    return m


RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
SUMMARY_KEYS = {"name", "generation", "status", "applied_at"}


def agent_ok(body, name, generation, with_manifest=True):
    """'' if `body` is the agent `name` at `generation`, else what is wrong."""
    if not isinstance(body, dict):
        return "not a JSON object"
    want = SUMMARY_KEYS | ({"manifest"} if with_manifest else set())
    if set(body) != want:
        return f"members {sorted(body)}, wanted {sorted(want)}"
    if body["name"] != name:
        return f"name {body['name']!r}"
    if body["generation"] != generation:
        return f"generation {body['generation']!r}, wanted {generation}"
    if body["status"] != "idle":
        return f"status {body['status']!r}"
    if not isinstance(body["applied_at"], str) or not RFC3339.match(body["applied_at"]):
        return f"applied_at {body['applied_at']!r} is not RFC 3339 UTC"
    if with_manifest and (body["manifest"].get("metadata") or {}).get("name") != name:
        return "manifest.metadata.name differs"
    return ""


def list_all(limit=1000):
    names, after, pages = [], None, 0
    while True:
        q = f"/v1/agents?limit={limit}" + (f"&after={after}" if after else "")
        s, h, p = request("GET", q)
        b = jbody(p) or {}
        if s != 200:
            raise RuntimeError(f"list: HTTP {s} {short(p)}")
        names += b.get("agents", [])
        pages += 1
        after = b.get("next")
        if not after or pages > 1000:
            return names


# ================================================================================
print(f"volent: {VOLENT}; config {CONFIG}; agent template {AGENT_FILE}")
listen_lines = start_node()
check("one 'volent node: listening on http://HOST:PORT' line on stderr", listen_lines == 1 and HOST == "127.0.0.1",
      f"{listen_lines} lines, host {HOST}")

# --- bad clients that need the read timeout: started first, checked later ----------
slow = {}


def half_request_then_silence():
    sock = socket.create_connection((HOST, PORT), timeout=60)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
    t = time.monotonic()
    try:
        data = sock.recv(65536)
        slow["half"] = (time.monotonic() - t, data)
    except Exception as e:
        slow["half"] = (time.monotonic() - t, f"{type(e).__name__}")
    sock.close()


def idle_keepalive():
    sock = socket.create_connection((HOST, PORT), timeout=60)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first, data = b"", b""
    t = None
    try:
        while True:
            first += sock.recv(65536)
            st, hd, bd = raw_split(first)
            if b"\r\n\r\n" in first and len(bd) >= int(hd.get("content-length", 0) or 0):
                break
        t = time.monotonic()
        data = sock.recv(65536)
        slow["idle"] = (time.monotonic() - t, data)
    except Exception as e:
        slow["idle"] = (time.monotonic() - (t or time.monotonic()), f"{type(e).__name__}")
    sock.close()


slow_threads = [threading.Thread(target=f, daemon=True) for f in (half_request_then_silence, idle_keepalive)]
for t in slow_threads:
    t.start()
SLOW_T0 = time.monotonic()

# --- health, documents ----------------------------------------------------------------
s, h, p = request("GET", "/healthz")
b = jbody(p) or {}
check("GET /healthz: 200 application/json {status ok, agents 0, uptime_seconds}",
      s == 200 and h.get("content-type", "").startswith("application/json") and b.get("status") == "ok"
      and b.get("agents") == 0 and isinstance(b.get("uptime_seconds"), (int, float)), f"HTTP {s} {short(p)}")

s, h, p = request("GET", "/openapi.json")
OPENAPI = jbody(p) or {}
check("GET /openapi.json: 200 application/json, an OpenAPI 3.1 document",
      s == 200 and h.get("content-type", "").startswith("application/json")
      and str(OPENAPI.get("openapi", "")).startswith("3.1.") and isinstance(OPENAPI.get("paths"), dict),
      f"HTTP {s} {short(p, 200)}")

DOC_ROUTES = {("GET", "/healthz"), ("GET", "/metrics"), ("GET", "/openapi.json"), ("GET", "/v1/schemas/agent"),
              ("GET", "/v1/schemas/node-config"), ("POST", "/v1/agents"), ("GET", "/v1/agents"),
              ("GET", "/v1/agents/{name}"), ("DELETE", "/v1/agents/{name}"), ("POST", "/v1/agents/{name}/runs"),
              ("GET", "/v1/agents/{name}/runs/{id}"), ("GET", "/v1/agents/{name}/runs/{id}/steps/{step}/receipt"),
              ("GET", "/v1/runs"), ("GET", "/v1/runs/{id}"), ("GET", "/v1/approvals"),
              ("GET", "/v1/approvals/{id}"), ("POST", "/v1/approvals/{id}/approve"), ("POST", "/v1/approvals/{id}/deny"),
              ("GET", "/v1/journal"), ("GET", "/v1/egress/denials"), ("GET", "/v1/attestation"),
              ("POST", "/v1/attestation/credential"),
              ("POST", "/v1/tools"), ("GET", "/v1/tools"),
              ("POST", "/v1/credentials"), ("GET", "/v1/credentials"), ("POST", "/v1/credentials/{id}/revoke")}
HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
API_ROUTES = {(m.upper(), path) for path, item in (OPENAPI.get("paths") or {}).items()
              for m in (item or {}) if m in HTTP_METHODS}
check("the OpenAPI document has every route of docs/control-api.md", DOC_ROUTES <= API_ROUTES,
      f"missing {sorted(DOC_ROUTES - API_ROUTES)}")
check("the OpenAPI document has no route docs/control-api.md does not list", API_ROUTES <= DOC_ROUTES,
      f"extra {sorted(API_ROUTES - DOC_ROUTES)}")

for which in ("agent", "node-config"):
    s, h, p = request("GET", f"/v1/schemas/{which}")
    sch = jbody(p) or {}
    check(f"GET /v1/schemas/{which}: 200 application/schema+json, a draft-07 JSON Schema",
          s == 200 and h.get("content-type", "").split(";")[0] == "application/schema+json"
          and "draft-07" in str(sch.get("$schema", "")) and len(sch) > 1, f"HTTP {s} {h.get('content-type')} {short(p, 150)}")

# --- apply, get, replace ------------------------------------------------------------------
AGENT_TEXT = with_mock(open(AGENT_FILE, encoding="utf-8").read())
s, h, p = request("POST", "/v1/agents", AGENT_TEXT, YAML)
first = jbody(p) or {}
NAME = (first.get("name") or "")
if not check("POST /v1/agents (YAML): 201 application/json, the agent at generation 1",
             s == 201 and h.get("content-type", "").startswith("application/json") and not agent_ok(first, NAME, 1),
             f"HTTP {s} {agent_ok(first, NAME, 1) if s == 201 else short(p)}"):
    print("the agent template could not be applied; nothing more can be checked")
    stop_node()
    check.finish("node_api: ")
check("apply 201: Location /v1/agents/NAME", h.get("location") == f"/v1/agents/{NAME}", h.get("location"))
TEMPLATE = first["manifest"]
TOOLS = [t for t in (TEMPLATE.get("spec", {}).get("tools") or []) if isinstance(t, dict) and t.get("capability")]
check("the agent template has a tool with a capability", bool(TOOLS))

s, h, p = request("POST", "/v1/agents", TEMPLATE)
b = jbody(p) or {}
check("POST /v1/agents (JSON) with the same name: 200, generation 2", s == 200 and not agent_ok(b, NAME, 2),
      f"HTTP {s} {agent_ok(b, NAME, 2) if s == 200 else short(p)}")
check("replace 200: Location /v1/agents/NAME", h.get("location") == f"/v1/agents/{NAME}", h.get("location"))
check("the stored manifest is the one sent (JSON round trip)", b.get("manifest") == TEMPLATE)

s, h, p = request("GET", f"/v1/agents/{NAME}")
got = jbody(p) or {}
check("GET /v1/agents/{name}: 200, generation 2, the manifest", s == 200 and not agent_ok(got, NAME, 2)
      and got.get("manifest") == TEMPLATE, f"HTTP {s} {agent_ok(got, NAME, 2) if s == 200 else short(p)}")

gen = 2
for ctype in ("application/x-yaml", "text/yaml", "application/yaml; charset=utf-8", "application/json; charset=utf-8",
              "Application/JSON"):
    body = json.dumps(TEMPLATE) if "json" in ctype.lower() else AGENT_TEXT
    s, h, p = request("POST", "/v1/agents", body, ctype)
    gen += 1
    check(f"Content-Type {ctype}: accepted, generation {gen}", s == 200 and (jbody(p) or {}).get("generation") == gen,
          f"HTTP {s} {short(p)}")

s, h, p = request("POST", "/v1/agents", to_yaml(named(TEMPLATE, "yaml-block")), YAML)
check("a block-style YAML manifest: 201", s == 201 and not agent_ok(jbody(p), "yaml-block", 1), f"HTTP {s} {short(p)}")

# The body limit is 1 MiB: exactly 1 MiB is served, one byte more is not.
base = AGENT_TEXT.rstrip("\n") + "\n# "
pad = 1048576 - len(base.encode()) - 1
s, h, p = request("POST", "/v1/agents", base + "x" * pad + "\n", YAML)
gen += 1
check("a body of exactly 1 MiB (a YAML comment pads it): served", s == 200, f"HTTP {s} {short(p)}")
expect_problem("a body of 1 MiB + 1 byte: 413 body-too-large", 413, "body-too-large",
               stream_post((base + "x" * (pad + 1) + "\n").encode()), "/v1/agents")

# --- list and paging ---------------------------------------------------------------------------
BATCH = [f"page-{i:03d}" for i in range(25)]
conn = http.client.HTTPConnection(HOST, PORT, timeout=20)
codes = [request("POST", "/v1/agents", named(TEMPLATE, n), conn=conn)[0] for n in BATCH]
conn.close()
check("25 more agents applied on one kept-alive connection: 201 each", codes == [201] * 25, str(codes))
ALL = sorted(set(BATCH) | {NAME, "yaml-block"})

s, h, p = request("GET", "/v1/agents")
b = jbody(p) or {}
names = [a.get("name") for a in b.get("agents", [])]
check("GET /v1/agents: every agent by name, next null (default limit 100)",
      s == 200 and names == ALL and "next" in b and b["next"] is None, f"HTTP {s} {names[:5]}... next {b.get('next')!r}")
check("list entries are summaries {name, generation, status, applied_at}",
      all(not agent_ok(a, a.get("name"), a.get("generation"), with_manifest=False) for a in b.get("agents", [])),
      next((agent_ok(a, a.get("name"), a.get("generation"), False) for a in b.get("agents", [])
            if agent_ok(a, a.get("name"), a.get("generation"), False)), ""))

pages, after, seen_names, ok_pages = [], None, [], True
while True:
    q = "/v1/agents?limit=10" + (f"&after={after}" if after else "")
    s, h, p = request("GET", q)
    b = jbody(p) or {}
    page = [a["name"] for a in b.get("agents", [])]
    pages.append((len(page), b.get("next")))
    seen_names += page
    if s != 200 or len(pages) > 10:
        ok_pages = False
        break
    if b.get("next") is None:
        break
    ok_pages &= b["next"] == page[-1]
    after = b["next"]
check("limit=10: pages of 10, 10, 7 (next = last name of the page, then null), every agent once, in order",
      ok_pages and [n for n, _ in pages] == [10, 10, len(ALL) - 20] and seen_names == ALL, str(pages))
s, h, p = request("GET", f"/v1/agents?after={ALL[-1]}")
b = jbody(p) or {}
check("after=the last name: empty page, next null", s == 200 and b.get("agents") == [] and b.get("next") is None,
      f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/agents?after=page-0105&limit=3")
b = jbody(p) or {}
check("after=a name that does not exist: starts after it", s == 200 and [a["name"] for a in b.get("agents", [])]
      == [n for n in ALL if n > "page-0105"][:3], f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/agents?limit=1000")
check("limit=1000: 200", s == 200, f"HTTP {s}")
s, h, p = request("GET", "/v1/agents?limit=1")
b = jbody(p) or {}
check("limit=1: one agent, next its name", s == 200 and len(b.get("agents", [])) == 1 and b.get("next") == ALL[0],
      f"HTTP {s} {short(p)}")
for q in ("limit=0", "limit=1001", "limit=-1", "limit=abc", "limit=", "limit=10x", "after=Not_A_Name"):
    path = f"/v1/agents?{q}"
    expect_problem(f"GET {path}: 400 bad-request", 400, "bad-request", request("GET", path), path)

# --- get and delete -----------------------------------------------------------------------------
expect_problem("GET /v1/agents/no-such-agent: 404 not-found", 404, "not-found", request("GET", "/v1/agents/no-such-agent"),
               "/v1/agents/no-such-agent")
for bad in ("Not_A_Name", "-leading-dash", "a" * 64, "%2e%2e", "a%2Fb"):
    path = f"/v1/agents/{bad}"
    s, h, p = request("GET", path)
    expect_problem(f"GET /v1/agents/{bad[:20]}: 400 bad-request (not a DNS label)", 400, "bad-request", (s, h, p))
s, h, p = request("GET", "/v1/agents/" + "a" * 63)
check("GET a 63-character name that is not there: 404", s == 404, f"HTTP {s}")

s, h, p = request("DELETE", "/v1/agents/page-024")
check("DELETE /v1/agents/{name}: 204, no body", s == 204 and p == b"", f"HTTP {s} {short(p)}")
expect_problem("GET after DELETE: 404 not-found", 404, "not-found", request("GET", "/v1/agents/page-024"))
expect_problem("DELETE again: 404 not-found", 404, "not-found", request("DELETE", "/v1/agents/page-024"),
               "/v1/agents/page-024")
s, h, p = request("POST", "/v1/agents", named(TEMPLATE, "page-024"))
check("applying a deleted name again: 201, generation 1", s == 201 and (jbody(p) or {}).get("generation") == 1,
      f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/healthz")
check("/healthz counts the agents", (jbody(p) or {}).get("agents") == len(ALL), short(p))

# Replacements from many connections at once: none lost, no generation twice.
gens, glock = [], threading.Lock()


def replacer():
    c_ = http.client.HTTPConnection(HOST, PORT, timeout=30)
    for _ in range(10):
        s_, h_, p_ = request("POST", "/v1/agents", named(TEMPLATE, "contended"), conn=c_)
        with glock:
            gens.append((jbody(p_) or {}).get("generation") if s_ in (200, 201) else f"HTTP {s_}")
    c_.close()


threads = [threading.Thread(target=replacer) for _ in range(8)]
for t_ in threads:
    t_.start()
for t_ in threads:
    t_.join()
final = (jbody(request("GET", "/v1/agents/contended")[2]) or {}).get("generation")
check("80 applies of one agent from 8 connections at once: generations 1 to 80, each once; the agent ends at 80",
      sorted(g for g in gens if isinstance(g, int)) == list(range(1, 81)) and final == 80,
      f"final {final}; {sorted(gens, key=str)[:10]}...")
request("DELETE", "/v1/agents/contended")

uni = named(TEMPLATE, "unicode-text")
uni["spec"]["instructions"] = "Rückerstattung prüfen \u2713 \U0001F680 \"quoted\" \\ back\tslash"
s, h, p = request("POST", "/v1/agents", to_yaml(uni) + "\n", YAML)
s2, h2, p2 = request("GET", "/v1/agents/unicode-text")
check("non-ASCII, quotes and escapes in a YAML manifest come back unchanged as JSON",
      s == 201 and ((jbody(p2) or {}).get("manifest") or {}).get("spec", {}).get("instructions") == uni["spec"]["instructions"],
      f"HTTP {s} {short(p2, 400)}")
s, h, p = request("POST", "/v1/agents", json.dumps(uni), JSON_T)
s2, h2, p2 = request("GET", "/v1/agents/unicode-text")
check("... and in a JSON manifest written with \\u escapes (surrogate pairs)",
      s == 200 and ((jbody(p2) or {}).get("manifest") or {}).get("spec", {}).get("instructions") == uni["spec"]["instructions"],
      f"HTTP {s} {short(p2, 400)}")
request("DELETE", "/v1/agents/unicode-text")

# --- invalid manifests ------------------------------------------------------------------------------
def yaml_lines(manifest):
    return to_yaml(manifest) + "\n"


def line_of(text, needle):
    for i, l in enumerate(text.split("\n"), 1):
        if needle in l:
            return i, l.index(needle) + 1
    return 0, 0


def errors_of(p):
    e = (jbody(p) or {}).get("errors")
    return e if isinstance(e, list) else []


def expect_field_error(name, body, ctype, pointer, needle):
    """422 invalid-manifest whose errors name `pointer` at the line (and a
    column on it) where `needle` is in the body."""
    s, h, p = request("POST", "/v1/agents", body, ctype)
    if not expect_problem(f"{name}: 422 invalid-manifest", 422, "invalid-manifest", (s, h, p), "/v1/agents"):
        return
    errs = errors_of(p)
    shapes = all(isinstance(e, dict) and isinstance(e.get("pointer"), str) and isinstance(e.get("detail"), str)
                 and e.get("detail") and isinstance(e.get("line"), int) and isinstance(e.get("column"), int)
                 and e["line"] > 0 and e["column"] > 0 for e in errs)
    check(f"{name}: every entry of errors has pointer, line, column, detail", errs and shapes, short(p, 500))
    line, col = line_of(body if isinstance(body, str) else json.dumps(body), needle)
    hit = [e for e in errs if e.get("pointer") == pointer]
    check(f"{name}: an error at {pointer}, line {line}", any(e.get("line") == line for e in hit),
          f"wanted line {line} (column {col}); got {json.dumps(errs)[:400]}")


bad = named(TEMPLATE, "bad-field")
bad["spec"]["surprise_field"] = 1
text = yaml_lines(bad)
expect_field_error("an unknown field (YAML)", text, YAML, "/spec/surprise_field", "surprise_field")
body = json.dumps(bad, indent=2)
expect_field_error("an unknown field (JSON)", body, JSON_T, "/spec/surprise_field", "surprise_field")

bad = named(TEMPLATE, "bad-kind")
bad["spec"]["tools"][0]["kind"] = "grpc"
text = yaml_lines(bad)
expect_field_error("a tool kind not in the enum", text, YAML, "/spec/tools/0/kind", '"grpc"')

ti = next(i for i, t in enumerate(TEMPLATE["spec"]["tools"]) if t.get("capability"))
bad = named(TEMPLATE, "bad-capability")
bad["spec"]["tools"][ti]["capability"] = "nowhere-on-the-allowlist"
text = yaml_lines(bad)
expect_field_error("a capability with no allowlist entry", text, YAML, f"/spec/tools/{ti}/capability",
                   "nowhere-on-the-allowlist")

bad = named(TEMPLATE, "Not_A_Name")
s, h, p = request("POST", "/v1/agents", bad)
expect_problem("metadata.name not a DNS label: 422 invalid-manifest", 422, "invalid-manifest", (s, h, p))
check("... naming /metadata/name", any(e.get("pointer") == "/metadata/name" for e in errors_of(p)), short(p, 400))

bad = json.loads(json.dumps(TEMPLATE))
del bad["metadata"]["name"]
s, h, p = request("POST", "/v1/agents", bad)
expect_problem("metadata.name missing: 422 invalid-manifest", 422, "invalid-manifest", (s, h, p))

bad = named(TEMPLATE, "two-problems")
bad["spec"]["tools"][0]["kind"] = "grpc"
bad["spec"]["another_surprise"] = True
s, h, p = request("POST", "/v1/agents", yaml_lines(bad), YAML)
check("two problems: both reported", s == 422 and {"/spec/tools/0/kind", "/spec/another_surprise"}
      <= {e.get("pointer") for e in errors_of(p)}, short(p, 500))

for what, body in (("a YAML list", "- 1\n- 2\n"), ("a YAML scalar", "just words\n"), ("an empty object", "{}"),
                   ("JSON null", "null")):
    s, h, p = request("POST", "/v1/agents", body, YAML if "YAML" in what else JSON_T)
    check(f"{what} as a manifest: 400 or 422 problem", s in (400, 422) and not is_problem(s, h, p),
          f"HTTP {s} {short(p)}")
s, h, p = request("POST", "/v1/agents", b"", YAML)
check("an empty body: 400 or 422 problem", s in (400, 422) and not is_problem(s, h, p), f"HTTP {s} {short(p)}")
dup = AGENT_TEXT.rstrip("\n") + "\nkind: Agent\n"
s, h, p = request("POST", "/v1/agents", dup, YAML)
check("a duplicate key: 400 or 422 problem", s in (400, 422) and not is_problem(s, h, p), f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/agents/bad-field")
check("no invalid manifest was stored", s == 404, f"HTTP {s}")

# --- malformed bodies, media types, sizes -------------------------------------------------------------
s, h, p = request("POST", "/v1/agents", '{"apiVersion": "volent/v1",\n "kind": "Agent",\n "metadata": {"name": }\n}', JSON_T)
expect_problem("malformed JSON: 400 malformed-body", 400, "malformed-body", (s, h, p), "/v1/agents")
errs = errors_of(p)
check("malformed JSON: errors give line and column", errs and all(isinstance(e.get("line"), int) and e["line"] > 0
      and isinstance(e.get("column"), int) and e["column"] > 0 for e in errs), short(p, 400))
check("malformed JSON: the line is 3", any(e.get("line") == 3 for e in errs), short(p, 400))
s, h, p = request("POST", "/v1/agents", "apiVersion: volent/v1\nkind: Agent\nmetadata:\n  name: [unclosed\n  x: : :\n", YAML)
expect_problem("malformed YAML: 400 malformed-body", 400, "malformed-body", (s, h, p), "/v1/agents")
errs = errors_of(p)
check("malformed YAML: errors give line and column", errs and all(isinstance(e.get("line"), int) and e["line"] > 0
      and isinstance(e.get("column"), int) and e["column"] > 0 for e in errs), short(p, 400))
s, h, p = request("POST", "/v1/agents", "a: \"\\xZZ\n\tb: 1\n", YAML)
expect_problem("YAML with a tab indent and a bad escape: 400 malformed-body", 400, "malformed-body", (s, h, p))
s, h, p = request("POST", "/v1/agents", b"\xff\xfe\x00 not utf-8", JSON_T)
check("a body that is not UTF-8: 400 problem", s == 400 and not is_problem(s, h, p), f"HTTP {s} {short(p)}")
s, h, p = request("POST", "/v1/agents", "[" * 100000, JSON_T)
check("100,000 nested arrays: 400 or 422 problem", s in (400, 422) and not is_problem(s, h, p), f"HTTP {s} {short(p)}")
s, h, p = request("POST", "/v1/agents", "a: " + "[" * 100000, YAML)
check("100,000 nested YAML sequences: 400 or 422 problem", s in (400, 422) and not is_problem(s, h, p),
      f"HTTP {s} {short(p)}")
s, h, p = request("POST", "/v1/agents", "a: &a [*a, *a]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\n", YAML)
check("YAML aliases: a 4xx problem", 400 <= s < 500 and not is_problem(s, h, p), f"HTTP {s} {short(p)}")
alive("deep and recursive documents")

for ctype in ("text/plain", "application/xml", "multipart/form-data; boundary=x", "application/jsonx"):
    expect_problem(f"Content-Type {ctype}: 415 unsupported-media-type", 415, "unsupported-media-type",
                   request("POST", "/v1/agents", AGENT_TEXT, ctype), "/v1/agents")
s, h, p = request("POST", "/v1/agents", AGENT_TEXT.encode(), None)
check("no Content-Type: 415 (or 400) problem", s in (415, 400) and not is_problem(s, h, p), f"HTTP {s} {short(p)}")


expect_problem("a 2 MiB body (Content-Length): 413 body-too-large", 413, "body-too-large", stream_post(TWO_MIB),
               "/v1/agents")
expect_problem("a 2 MiB body (chunked): 413 body-too-large", 413, "body-too-large",
               stream_post(TWO_MIB, chunked=True), "/v1/agents")
alive("oversized bodies")

# --- paths and methods -------------------------------------------------------------------------------
for path in ("/nope", "/v1/agentsx", "/v1/", "/v1/agents/a/b", "/V1/agents", "/healthz/", "/v2/agents",
             "/" + "x" * 5000):
    expect_problem(f"GET {path[:30]}: 404 not-found", 404, "not-found", request("GET", path), path)
ALLOW = {}
for item_path, item in (OPENAPI.get("paths") or {}).items():
    ALLOW[item_path] = {m.upper() for m in item if m in HTTP_METHODS}
for method, path, template in (("PUT", "/v1/agents", "/v1/agents"), ("DELETE", "/v1/agents", "/v1/agents"),
                               ("POST", f"/v1/agents/{NAME}", "/v1/agents/{name}"),
                               ("PATCH", f"/v1/agents/{NAME}", "/v1/agents/{name}"),
                               ("DELETE", "/healthz", "/healthz"), ("POST", "/metrics", "/metrics"),
                               ("PUT", "/openapi.json", "/openapi.json"), ("POST", "/v1/runs", "/v1/runs"),
                               ("GET", "/v1/approvals/x1/approve", "/v1/approvals/{id}/approve")):
    s, h, p = request(method, path, b"{}" if method in ("PUT", "POST", "PATCH") else None,
                      JSON_T if method in ("PUT", "POST", "PATCH") else None)
    allow = {m.strip().upper() for m in h.get("allow", "").split(",") if m.strip()}
    if expect_problem(f"{method} {path}: 405 method-not-allowed", 405, "method-not-allowed", (s, h, p), path):
        check(f"{method} {path}: Allow lists the route's methods ({', '.join(sorted(ALLOW.get(template, [])))})",
              allow and (allow == ALLOW.get(template) or allow == ALLOW.get(template, set()) | {"HEAD"}),
              f"Allow {h.get('allow')!r}")
s, h, p = request("BREW", "/healthz")
check("an unknown method (BREW): 405 or 400 or 501 problem", s in (400, 405, 501) and not is_problem(s, h, p),
      f"HTTP {s} {short(p)}")

# The attestation report (tests/volent/attest_test.py checks it with a TPM).
expect_problem("GET /v1/attestation without a nonce: 400", 400, "bad-request",
               request("GET", "/v1/attestation"), "/v1/attestation")
s, h, p = request("GET", "/v1/attestation?nonce=00ff")
envelope = jbody(p) or {}
check("GET /v1/attestation?nonce=00ff: 200, a signed report (DSSE envelope)", s == 200
      and envelope.get("payloadType") == "application/vnd.in-toto+json" and len(envelope.get("signatures", [])) == 1,
      f"HTTP {s} {short(p)}")

# --- runs, approvals and the journal ------------------------------------------------------------------
MS3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
RUN_KEYS = {"agent", "id", "status", "input", "output", "error", "steps_done", "started_at", "finished_at"}


def run_ok(body, agent, run_id, one=True):
    """'' if `body` is the run `run_id` of `agent`, else what is wrong. A run
    got by itself (`one`) also lists its tool calls."""
    if not isinstance(body, dict):
        return "not a JSON object"
    want = RUN_KEYS | ({"tool_calls"} if one else set())
    if set(body) != want:
        return f"members {sorted(body)}, wanted {sorted(want)}"
    if one and not (isinstance(body["tool_calls"], list)
                    and all({"step", "tool", "outcome"} <= set(c) for c in body["tool_calls"])):
        return f"tool_calls {body['tool_calls']!r}"
    if body["agent"] != agent or body["id"] != run_id:
        return f"agent {body['agent']!r} id {body['id']!r}"
    if body["status"] not in ("running", "waiting-approval", "finished", "failed"):
        return f"status {body['status']!r}"
    if not isinstance(body["started_at"], str) or not MS3339.match(body["started_at"]):
        return f"started_at {body['started_at']!r} is not RFC 3339 UTC with milliseconds"
    if body["finished_at"] is not None and not MS3339.match(str(body["finished_at"])):
        return f"finished_at {body['finished_at']!r}"
    if not isinstance(body["steps_done"], int) or body["steps_done"] < 0:
        return f"steps_done {body['steps_done']!r}"
    return ""


def journal_ok(body):
    """'' if `body` is a page of the journal, else what is wrong."""
    if not isinstance(body, dict) or set(body) != {"digest", "entries", "next"}:
        return f"members {sorted(body) if isinstance(body, dict) else body!r}"
    d = body["digest"]
    if not isinstance(d, dict) or not isinstance(d.get("entries"), int) or \
            not re.match(r"^sha256:[0-9a-f]{64}$", str(d.get("head"))):
        return f"digest {d!r}"
    if not isinstance(body["entries"], list) or not (body["next"] is None or isinstance(body["next"], int)):
        return "entries or next"
    for e in body["entries"]:
        if set(e) != {"seq", "kind", "agent", "run", "step", "key", "payload", "time", "time_ms", "prev_hash", "hash"}:
            return f"entry members {sorted(e)}"
        if e["key"] != f"{e['agent']}/{e['run']}/{e['step']}" or not MS3339.match(str(e["time"])):
            return f"entry {e['seq']}: key {e['key']!r} time {e['time']!r}"
    seqs = [e["seq"] for e in body["entries"]]
    if seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
        return f"not ascending: {seqs[:10]}"
    return ""


s, h, p = request("GET", "/v1/runs")
check("GET /v1/runs: 200 application/json {runs: [...]}", s == 200 and isinstance((jbody(p) or {}).get("runs"), list)
      and h.get("content-type", "").startswith("application/json"), f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/approvals")
check("GET /v1/approvals: 200 {approvals: [...]}", s == 200 and isinstance((jbody(p) or {}).get("approvals"), list),
      f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/approvals?state=all")
check("GET /v1/approvals?state=all: 200 {approvals: [...]}",
      s == 200 and isinstance((jbody(p) or {}).get("approvals"), list), f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/journal")
JOURNAL0 = jbody(p) or {}
check("GET /v1/journal: 200, a page of entries with the journal's digest", s == 200 and not journal_ok(JOURNAL0),
      f"HTTP {s} {journal_ok(JOURNAL0) if s == 200 else short(p)}")

RUN_AGENT, RUN_ID = NAME, "node-api-run-1"
s, h, p = request("POST", f"/v1/agents/{RUN_AGENT}/runs", {"id": RUN_ID, "input": {"order": 17}})
run = jbody(p) or {}
check(f"POST /v1/agents/{RUN_AGENT}/runs with an id: 201, the run, Location",
      s == 201 and not run_ok(run, RUN_AGENT, RUN_ID, one=False) and run.get("input") == {"order": 17}
      and h.get("location") == f"/v1/agents/{RUN_AGENT}/runs/{RUN_ID}",
      f"HTTP {s} {run_ok(run, RUN_AGENT, RUN_ID, one=False) if s == 201 else short(p)} Location {h.get('location')!r}")
s, h, p = request("POST", f"/v1/agents/{RUN_AGENT}/runs", {"id": RUN_ID, "input": {"order": 99}})
again = jbody(p) or {}
check("... the same id again: 200, the existing run as it was (input unchanged)",
      s == 200 and not run_ok(again, RUN_AGENT, RUN_ID, one=False) and again.get("input") == {"order": 17}, f"HTTP {s} {short(p)}")
s, h, p = request("GET", f"/v1/agents/{RUN_AGENT}/runs/{RUN_ID}")
check("GET the run: 200, the run", s == 200 and not run_ok(jbody(p), RUN_AGENT, RUN_ID), f"HTTP {s} {short(p)}")
s, h, p = request("GET", f"/v1/runs?agent={RUN_AGENT}&limit=10")
listed_runs = (jbody(p) or {}).get("runs") or []
check("GET /v1/runs?agent=NAME: lists the run", s == 200 and any(r.get("id") == RUN_ID for r in listed_runs),
      f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/journal?limit=1000")
page = jbody(p) or {}
check("GET /v1/journal: the run's start is journaled (a run-started entry for it)",
      s == 200 and not journal_ok(page) and any(e["kind"] == "run-started" and e["run"] == RUN_ID
                                                for e in page.get("entries", [])), f"HTTP {s} {short(p)}")
if page.get("entries"):
    first_seq = page["entries"][0]["seq"]
    s, h, p = request("GET", f"/v1/journal?after={first_seq}&limit=1")
    one = jbody(p) or {}
    # The run advances on its own meanwhile: judge by this page's digest (read
    # before its entries), not the first page's. Without a next entry yet, the
    # page may still catch one appended between the two reads.
    seqs = [e["seq"] for e in one.get("entries", [])]
    has_next = seqs == [first_seq + 1] and one.get("next") == first_seq + 1
    check("GET /v1/journal?after=SEQ&limit=1: the next entry, and next = its seq",
          s == 200 and (has_next if (one.get("digest") or {}).get("entries", 0) > first_seq
                        else has_next or not seqs), f"HTTP {s} {short(p)}")

# The template requires approval for its tool: the run parks on it.
APPROVAL_KEYS = {"id", "agent", "run", "step", "tool", "arguments", "requested_at", "state", "decided_by", "reason",
                 "decided_at",
                 "decided_by_identity", "call_digest", "signature"}
waiting, deadline = None, time.monotonic() + 15
while time.monotonic() < deadline:
    s, h, p = request("GET", "/v1/approvals")
    waiting = next((a for a in (jbody(p) or {}).get("approvals", []) if a.get("run") == RUN_ID), None)
    if waiting:
        break
    time.sleep(0.1)
if check("the run's tool call that needs approval is listed as a pending approval (GET /v1/approvals)",
         waiting is not None and set(waiting) == APPROVAL_KEYS and waiting["state"] == "pending"
         and waiting["agent"] == RUN_AGENT and waiting["decided_by"] is None and MS3339.match(waiting["requested_at"]),
         str(waiting) if waiting else f"none for {RUN_ID} within 15 s"):
    APPROVAL = waiting["id"]
    for _ in range(50):
        s, h, p = request("GET", f"/v1/agents/{RUN_AGENT}/runs/{RUN_ID}")
        if (jbody(p) or {}).get("status") == "waiting-approval":
            break
        time.sleep(0.1)
    check("... and the run is waiting-approval", (jbody(p) or {}).get("status") == "waiting-approval", short(p))
    s, h, p = request("GET", f"/v1/approvals/{APPROVAL}")
    check(f"GET /v1/approvals/{APPROVAL}: 200, the approval", s == 200 and jbody(p) == waiting, f"HTTP {s} {short(p)}")
    s, h, p = request("POST", f"/v1/approvals/{APPROVAL}/approve", {"by": "node-api", "reason": "checked"})
    check(f"POST /v1/approvals/{APPROVAL}/approve naming a decider in the body: 422 at /by (who decides is the "
          "credential)", s == 422 and [e.get("pointer") for e in (jbody(p) or {}).get("errors", [])] == ["/by"],
          f"HTTP {s} {short(p)}")
    TOKEN_ID = (token_for(PORT) or "")[4:20]
    s, h, p = request("POST", f"/v1/approvals/{APPROVAL}/approve", {"reason": "checked"})
    decided = jbody(p) or {}
    check(f"POST /v1/approvals/{APPROVAL}/approve: 200, approved by the authenticated token with the reason and a time",
          s == 200 and decided.get("state") == "approved"
          and decided.get("decided_by") == f"token {TOKEN_ID} (bootstrap admin)"
          and (decided.get("decided_by_identity") or {}).get("token_id") == TOKEN_ID
          and (decided.get("decided_by_identity") or {}).get("kind") == "token"
          and decided.get("reason") == "checked" and MS3339.match(str(decided.get("decided_at"))), f"HTTP {s} {short(p)}")
    for verb in ("deny", "approve"):
        s, h, p = request("POST", f"/v1/approvals/{APPROVAL}/{verb}", {})
        check(f"... then /{verb}: 409 conflict naming the decision and who made it",
              s == 409 and not is_problem(s, h, p, "conflict") and "approved" in (jbody(p) or {}).get("detail", "")
              and TOKEN_ID in (jbody(p) or {}).get("detail", ""), f"HTTP {s} {short(p)}")
    s, h, p = request("GET", "/v1/approvals?state=all")
    check("GET /v1/approvals?state=all lists it approved; the pending list no longer has it",
          any(a.get("id") == APPROVAL and a.get("state") == "approved" for a in (jbody(p) or {}).get("approvals", []))
          and not any(a.get("id") == APPROVAL for a in (jbody(request("GET", "/v1/approvals")[2]) or {}).get("approvals", [])),
          short(p))
    s, h, p = request("GET", "/v1/journal?limit=1000")
    kinds = [e["kind"] for e in (jbody(p) or {}).get("entries", []) if e.get("run") == RUN_ID]
    check("the journal holds the approval's request and decision for the run",
          "approval-requested" in kinds and "approval-decided" in kinds, str(kinds))
    decided_entries = [e for e in (jbody(p) or {}).get("entries", [])
                       if e.get("run") == RUN_ID and e.get("kind") == "approval-decided"]
    identity = (decided_entries[0].get("payload") or {}).get("identity", {}) if decided_entries else {}
    check("... and the approval-decided entry names the authenticated identity (token id and name), not a "
          "self-declared one", identity.get("token_id") == TOKEN_ID and identity.get("name") == "bootstrap admin",
          str(decided_entries)[:400])

expect_problem("POST a run with malformed JSON: 400 malformed-body", 400, "malformed-body",
               request("POST", f"/v1/agents/{RUN_AGENT}/runs", b'{"id":', JSON_T), f"/v1/agents/{RUN_AGENT}/runs")
s, h, p = request("POST", f"/v1/agents/{RUN_AGENT}/runs", {"id": "x", "imput": {}})
check("POST a run with an unknown member: 422 invalid-body with its pointer",
      s == 422 and not is_problem(s, h, p, "invalid-body")
      and [e.get("pointer") for e in (jbody(p) or {}).get("errors", [])] == ["/imput"], f"HTTP {s} {short(p)}")
s, h, p = request("POST", f"/v1/agents/{RUN_AGENT}/runs", {"id": "not a run id"})
check("POST a run with an invalid id: 422 invalid-body at /id",
      s == 422 and [e.get("pointer") for e in (jbody(p) or {}).get("errors", [])] == ["/id"], f"HTTP {s} {short(p)}")
expect_problem("POST a run of an agent that does not exist: 404 not-found", 404, "not-found",
               request("POST", "/v1/agents/no-such-agent/runs", {}), "/v1/agents/no-such-agent/runs")
expect_problem("GET a run that does not exist: 404 not-found", 404, "not-found",
               request("GET", f"/v1/agents/{RUN_AGENT}/runs/no-such-run"), f"/v1/agents/{RUN_AGENT}/runs/no-such-run")
for q in ("limit=0", "limit=1001", "agent=Not_A_Name"):
    expect_problem(f"GET /v1/runs?{q}: 400 bad-request", 400, "bad-request", request("GET", f"/v1/runs?{q}"), "/v1/runs")
for q in ("limit=0", "after=-1", "after=x"):
    expect_problem(f"GET /v1/journal?{q}: 400 bad-request", 400, "bad-request", request("GET", f"/v1/journal?{q}"),
                   "/v1/journal")
expect_problem("GET /v1/approvals?state=done: 400 bad-request", 400, "bad-request",
               request("GET", "/v1/approvals?state=done"), "/v1/approvals")
for verb in ("approve", "deny"):
    path = f"/v1/approvals/987654321/{verb}"
    expect_problem(f"POST {path} (no such approval): 404 not-found", 404, "not-found",
                   request("POST", path, {}), path)
    s, h, p = request("POST", path, {"by": "node-api"})
    check(f"POST {path} with a self-declared by: 422 invalid-body at /by",
          s == 422 and not is_problem(s, h, p, "invalid-body")
          and [e.get("pointer") for e in (jbody(p) or {}).get("errors", [])] == ["/by"], f"HTTP {s} {short(p)}")
    expect_problem(f"POST {path} with malformed JSON: 400 malformed-body", 400, "malformed-body",
                   request("POST", path, b"{by", JSON_T), path)
expect_problem("GET /v1/approvals/987654321: 404 not-found", 404, "not-found",
               request("GET", "/v1/approvals/987654321"), "/v1/approvals/987654321")
expect_problem("GET /v1/approvals/ap-1 (not a decimal id): 400 bad-request", 400, "bad-request",
               request("GET", "/v1/approvals/ap-1"), "/v1/approvals/ap-1")

# --- OpenAPI coverage from the outside --------------------------------------------------------------
cover_agent = "openapi-probe"
request("POST", "/v1/agents", named(TEMPLATE, cover_agent))
problems = []
ops = sorted(((p_, m) for p_, item in (OPENAPI.get("paths") or {}).items() for m in (item or {}) if m in HTTP_METHODS),
             key=lambda x: x[1] == "delete")
for path, method in ops:
    op = OPENAPI["paths"][path][method]
    concrete = path.replace("{name}", cover_agent).replace("{id}", "ap-1")
    concrete = re.sub(r"\{[^}]+\}", "x1", concrete)
    body, ctype = None, None
    if "requestBody" in op:
        content = (op["requestBody"].get("content") or {})
        if any("yaml" in k for k in content):
            body, ctype = AGENT_TEXT, next(k for k in content if "yaml" in k)
        else:
            body, ctype = json.dumps(named(TEMPLATE, cover_agent)), next(iter(content), JSON_T)
    elif method in ("post", "put", "patch"):
        body, ctype = b"{}", JSON_T
    s, h, p = request(method.upper(), concrete, body, ctype)
    listed = {str(k) for k in (op.get("responses") or {})}
    if s == 405 or (s == 404 and "{" not in path):
        problems.append(f"{method.upper()} {concrete}: HTTP {s}")
    elif str(s) not in listed and f"{str(s)[0]}XX" not in listed and "default" not in listed:
        problems.append(f"{method.upper()} {concrete}: HTTP {s} not among the listed responses {sorted(listed)}")
    elif s >= 400 and is_problem(s, h, p):
        problems.append(f"{method.upper()} {concrete}: HTTP {s} {is_problem(s, h, p)}")
check(f"every operation of the OpenAPI document ({len(ops)}) answers with a status it lists", ops and not problems,
      "; ".join(problems))
request("POST", "/v1/agents", named(TEMPLATE, cover_agent))
wrong = []
for path, methods in ALLOW.items():
    concrete = re.sub(r"\{[^}]+\}", "x1", path.replace("{name}", cover_agent))
    for method in sorted({"GET", "POST", "PUT", "DELETE", "PATCH"} - methods):
        s, h, p = request(method, concrete, b"{}" if method in ("POST", "PUT", "PATCH") else None,
                          JSON_T if method in ("POST", "PUT", "PATCH") else None)
        allow = {m.strip().upper() for m in h.get("allow", "").split(",") if m.strip()}
        if s != 405 or allow - {"HEAD"} != methods or is_problem(s, h, p, "method-not-allowed"):
            wrong.append(f"{method} {concrete}: HTTP {s}, Allow {h.get('allow')!r}")
check("every other method on every path of the document: 405 with Allow listing the document's methods",
      ALLOW and not wrong, "; ".join(wrong[:5]))

# --- metrics -----------------------------------------------------------------------------------------
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$')
LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


def parse_prometheus(text):
    """{family: type}, [(name, {labels}, value)], [errors]"""
    types, samples, errs = {}, [], []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] == "TYPE":
                if len(parts) != 4 or parts[3] not in ("counter", "gauge", "summary", "histogram", "untyped"):
                    errs.append(f"line {n}: bad TYPE")
                elif parts[2] in types:
                    errs.append(f"line {n}: second TYPE for {parts[2]}")
                else:
                    types[parts[2]] = parts[3]
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            errs.append(f"line {n}: not a sample: {line[:80]!r}")
            continue
        labels, rest = {}, m.group(3) or ""
        while rest.strip():
            lm = LABEL_RE.match(rest)
            if not lm:
                errs.append(f"line {n}: bad labels {m.group(3)[:80]!r}")
                break
            labels[lm.group(1)] = lm.group(2)
            rest = rest[lm.end():]
        try:
            value = float(m.group(4))
        except ValueError:
            errs.append(f"line {n}: bad value {m.group(4)!r}")
            continue
        name = m.group(1)
        family = next((name[:-len(sfx)] for sfx in ("_sum", "_count", "_bucket")
                       if name.endswith(sfx) and name[:-len(sfx)] in types), name)
        if family not in types:
            errs.append(f"line {n}: {name} has no TYPE line before it")
        samples.append((name, labels, value))
    return types, samples, errs


request("GET", "/v1/agents/this-name-must-not-become-a-label")
request("GET", "/no/such/path/unique-4711")
s, h, p = request("GET", "/metrics")
check("GET /metrics: 200 text/plain; version=0.0.4",
      s == 200 and h.get("content-type", "").replace(" ", "").lower().startswith("text/plain;version=0.0.4"),
      f"HTTP {s} {h.get('content-type')}")
types, samples, errs = parse_prometheus(p.decode("utf-8", "replace"))
check("/metrics parses as Prometheus text format 0.0.4", samples and not errs, "; ".join(errs[:5]))
n_agents = (jbody(request("GET", "/healthz")[2]) or {}).get("agents")
va = [v for n, l, v in samples if n == "volent_agents"]
check("volent_agents is a gauge with the number of agents", types.get("volent_agents") == "gauge" and va == [n_agents],
      f"{types.get('volent_agents')} {va} vs {n_agents}")
req_total = [(l, v) for n, l, v in samples if n == "volent_http_requests_total"]
check("volent_http_requests_total: a counter with route, method and code",
      types.get("volent_http_requests_total") == "counter" and req_total
      and all({"route", "method", "code"} <= set(l) for l, v in req_total), str(req_total[:3]))
check("requests are counted under the route template (/v1/agents/{name}, 201, 404, 400...)",
      any(l.get("route") == "/v1/agents/{name}" and l.get("code") == "404" for l, v in req_total)
      and any(l.get("route") == "/v1/agents" and l.get("code") == "201" for l, v in req_total)
      and any(l.get("route") == "/v1/attestation" and l.get("code") == "400" for l, v in req_total), str(sorted({(l.get("route"), l.get("code")) for l, v in req_total})[:40]))
def runs_count(samples_):
    return sum(v for n, l, v in samples_ if n == "volent_http_requests_total" and l.get("route") == "/v1/runs"
               and l.get("method") == "GET" and l.get("code") == "200")


before_runs = runs_count(samples)
for _ in range(3):
    request("GET", "/v1/runs")
later = parse_prometheus(request("GET", "/metrics")[2].decode("utf-8", "replace"))[1]
check("volent_http_requests_total counts: three GET /v1/runs add 3 to {route=/v1/runs,method=GET,code=200}",
      runs_count(later) - before_runs == 3, f"{before_runs} -> {runs_count(later)}")
leaky = [l for n, l, v in samples if any("4711" in x or "this-name-must" in x for x in l.values())]
check("no label value carries a request's own path or agent name", not leaky, str(leaky[:3]))
hs = [(l, v) for n, l, v in samples if n == "volent_http_handler_seconds"]
q_routes = {l.get("route") for l, v in hs if l.get("quantile") == "0.99"}
check("volent_http_handler_seconds: a summary with quantiles 0.5, 0.9, 0.99 per route, _sum and _count",
      types.get("volent_http_handler_seconds") == "summary" and "/v1/agents/{name}" in q_routes and "/v1/agents" in q_routes
      and all({"0.5", "0.9", "0.99"} <= {l.get("quantile") for l, v in hs if l.get("route") == r} for r in q_routes)
      and any(n == "volent_http_handler_seconds_count" for n, l, v in samples)
      and any(n == "volent_http_handler_seconds_sum" for n, l, v in samples),
      f"type {types.get('volent_http_handler_seconds')}, routes {sorted(x for x in q_routes if x)}")
check("the quantiles are plausible (0 <= p50 <= p90 <= p99 < 10 s)", all(
    0 <= dict((l.get("quantile"), v) for l, v in hs if l.get("route") == r).get("0.5", -1)
    <= dict((l.get("quantile"), v) for l, v in hs if l.get("route") == r).get("0.9", -1)
    <= dict((l.get("quantile"), v) for l, v in hs if l.get("route") == r).get("0.99", -1) < 10 for r in q_routes),
      str([(l, v) for l, v in hs][:6]))
rss = [v for n, l, v in samples if n == "process_resident_memory_bytes"]
check("process_resident_memory_bytes: a gauge above 1 MB", rss and rss[0] > 1e6 and
      types.get("process_resident_memory_bytes") == "gauge", str(rss))

# --- every error a problem, nothing leaks --------------------------------------------------------------
bad_problems = [f"{w}: HTTP {s}: {is_problem(s, h, p)}" for w, s, h, p in ERRORS if s >= 400 and is_problem(s, h, p)]
check(f"every error answer so far ({len(ERRORS)}) is application/problem+json with type, title, status, detail, instance",
      not bad_problems, "; ".join(bad_problems[:5]))
LEAKS = re.compile(r"boost|beast|asio|exception|std::|nlohmann|yaml-cpp|yaml::|yaml_|valijson|sqlite|what\(\)|"
                   r"terminate|basic_string|bad_alloc|stack trace|\.cc:\d|\.h:\d|0x[0-9a-f]{8}", re.I)


def leaks():
    out = []
    for w, s, h, p in SEEN:
        texts = [f"{k}: {v}" for k, v in h.items()] + [p.decode("utf-8", "replace")]
        for t in texts:
            m = LEAKS.search(t)
            if m:
                out.append(f"{w} (HTTP {s}): ...{t[max(0, m.start() - 60):m.end() + 60]}...")
    return out


with_errors = [f"{w}: HTTP {s}" for w, s, h, p in ERRORS if s not in (400, 422) and "errors" in (jbody(p) or {})]
check("only validation problems (400, 422) carry errors", not with_errors, "; ".join(with_errors[:5]))
not_json = [f"{w}: HTTP {s} {h.get('content-type')}" for w, s, h, p in SEEN if 200 <= s < 300 and s != 204
            and not any(x in w for x in ("/metrics", "/v1/schemas/"))
            and h.get("content-type", "").split(";")[0].strip() != "application/json"]
check("every other success answer is application/json", not not_json, "; ".join(not_json[:5]))
lk = leaks()
check(f"no answer ({len(SEEN)}) names the implementation (library, exception, source file)", not lk, "; ".join(lk[:5]))
server = {h.get("server", "") for w, s, h, p in SEEN}
check("no Server header names a library", not any(re.search(r"boost|beast|asio", x, re.I) for x in server), str(server))
oa = json.dumps(OPENAPI)
m = re.search(r"boost|beast|asio|nlohmann|yaml-cpp|valijson|exception", oa, re.I)
check("the OpenAPI document names no library", not m, oa[max(0, m.start() - 80):m.end() + 80] if m else "")

# --- bad clients ---------------------------------------------------------------------------------------
req = authed(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n\r\n".encode())
out = raw(req, shut=True)
check("a client that half-closes after a whole request gets its answer", out.startswith(b"HTTP/1.1 200") and b'"ok"' in out,
      short(out, 120))
body = json.dumps(named(TEMPLATE, "half-closed")).encode()
out = raw(authed(b"POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(body)).encode() + b"\r\n\r\n" + body), shut=True)
check("... also for an apply (201)", out.startswith(b"HTTP/1.1 201"), short(out, 120))
out = raw(b"POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
          shut=True)
check("a client that half-closes after half a request: no 2xx answer, the connection is closed",
      not out.startswith(b"HTTP/1.1 2"), short(out, 120))
out = raw(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", shut=True)
check("... the same with half a header", not out.startswith(b"HTTP/1.1 2"), short(out, 120))
alive("half-closed clients")

sock = socket.create_connection((HOST, PORT), timeout=10)
sock.sendall(authed(b"GET /healthz HTTP/1.0\r\n\r\n"))
out, t_ = b"", time.monotonic()
try:
    while True:
        c_ = sock.recv(65536)
        if not c_:
            break
        out += c_
except OSError:
    pass
sock.close()
check("an HTTP/1.0 request without keep-alive: answered, then the node closes the connection",
      out.startswith(b"HTTP/1.") and b" 200 " in out[:20] and time.monotonic() - t_ < 9, short(out, 100))
sock = socket.create_connection((HOST, PORT), timeout=10)
sock.sendall(authed(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
out, t_ = b"", time.monotonic()
try:
    while True:
        c_ = sock.recv(65536)
        if not c_:
            break
        out += c_
except OSError:
    pass
sock.close()
check("Connection: close: answered, then the node closes the connection",
      out.startswith(b"HTTP/1.1 200") and time.monotonic() - t_ < 9, short(out, 100))
out = raw(authed(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/runs HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), shut=False)
codes = [int(x) for x in re.findall(rb"HTTP/1\.1 (\d{3}) ", out)]
check("three pipelined requests: three answers in order (200, 200, 200)", codes[:3] == [200, 200, 200], str(codes))

# A request dribbled one byte at a time: answered, and others are served meanwhile.
dribble = {}


def dribbler():
    sock = socket.create_connection((HOST, PORT), timeout=30)
    for b_ in req:
        sock.send(bytes([b_]))
        time.sleep(0.04)
    data = b""
    try:
        while b'"ok"' not in data:
            c = sock.recv(4096)
            if not c:
                break
            data += c
    except OSError:
        pass
    dribble["out"] = data
    sock.close()


t = threading.Thread(target=dribbler)
t.start()
served = 0
while t.is_alive():
    served += healthz()
t.join()
check(f"a request dribbled byte by byte is answered, and others were served meanwhile ({served})",
      dribble.get("out", b"").startswith(b"HTTP/1.1 200") and served >= 5, short(dribble.get("out", b""), 80))

# Many connections at once.
results = []


def one_client():
    try:
        c = http.client.HTTPConnection(HOST, PORT, timeout=30)
        c.request("GET", "/healthz", headers=bearer())
        r = c.getresponse()
        r.read()
        c.request("GET", f"/v1/agents/{NAME}", headers=bearer())
        r2 = c.getresponse()
        r2.read()
        results.append((r.status, r2.status))
        c.close()
    except Exception as e:
        results.append((type(e).__name__, None))


threads = [threading.Thread(target=one_client) for _ in range(200)]
for t_ in threads:
    t_.start()
for t_ in threads:
    t_.join()
check("200 clients at once, two requests each on one connection: all answered 200",
      results.count((200, 200)) == 200, str({str(r): results.count(r) for r in set(results)}))

def node_sockets():
    try:
        return sum(os.readlink(f"/proc/{NODE.proc.pid}/fd/{fd}").startswith("socket:")
                   for fd in os.listdir(f"/proc/{NODE.proc.pid}/fd"))
    except OSError:
        return -1


time.sleep(0.3)
held_before = node_sockets()
socks, refused = [], 0
for _ in range(1100):
    try:
        socks.append(socket.create_connection((HOST, PORT), timeout=5))
    except OSError:
        refused += 1
time.sleep(0.5)
held = node_sockets()
closed = 0
for s_ in socks:
    s_.setblocking(False)
    try:
        closed += s_.recv(1) == b""
    except (BlockingIOError, OSError):
        pass
note(f"{len(socks)} idle connections opened ({refused} refused); the node holds {held} sockets "
     f"({held_before} before), "
     f"{closed} connections were closed by it")
check("1,100 idle connections (over the limit of 1,024): the node is still running", NODE.proc.poll() is None)
check("... and holds at most 1,024 connections (sockets in /proc/PID/fd, the listener aside)",
      0 <= held <= 1024 + 2, f"{held} sockets")
check("... and closes the connections beyond the limit at once", closed >= len(socks) - 1024,
      f"{closed} closed of {len(socks)}")
for s_ in socks:
    s_.close()
ok_after = False
for _ in range(50):
    if healthz():
        ok_after = True
        break
    time.sleep(0.1)
check("once they are closed, /healthz is served", ok_after)

# Garbage.
for what, data in (("garbage bytes", b"\x00\x01garbage\r\n\r\n"),
                   ("random bytes", bytes(random.getrandbits(8) for _ in range(65536))),
                   ("an HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
                   ("a negative Content-Length", b"POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
                   ("two Content-Lengths", b"POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                                            b"Content-Length: 2\r\nContent-Type: application/json\r\n\r\n{}"),
                   ("a bad chunk size", b"POST /v1/agents HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                        b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
                   ("a 100 KB header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n"),
                   ("10,000 headers", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 10000 + b"\r\n"),
                   ("a 100 KB request line", b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")):
    out = raw(data, shut=True)
    st = raw_status(out)
    if out:
        s2, h2, b2 = raw_split(out)
        ERRORS.append((what, s2 or 0, h2, b2))
        check(f"{what}: a 4xx problem or a closed connection", st is not None and 400 <= st < 500
              and not is_problem(s2, h2, b2), short(out, 160))
    else:
        check(f"{what}: a 4xx problem or a closed connection", True)
    alive(what)

# --- the read timeout ---------------------------------------------------------------------------------
for t_ in slow_threads:
    t_.join(max(1, 45 - (time.monotonic() - SLOW_T0)))
half = slow.get("half")
check("half a request, then silence: the node closes the connection (read timeout, 30 s)",
      half is not None and (half[1] == b"" or (isinstance(half[1], bytes) and raw_status(half[1]) in (400, 408))),
      f"after {half[0]:.0f} s: {half[1]!r}"[:200] if half else "still open after 45 s")
idle = slow.get("idle")
check("an idle kept-alive connection: closed by the node (30 s after the previous answer)",
      idle is not None and (idle[1] == b"" or (isinstance(idle[1], bytes) and raw_status(idle[1]) == 408)),
      f"after {idle[0]:.0f} s: {idle[1]!r}"[:200] if idle else "still open after 45 s")
note("closed after: half request " + (f"{half[0]:.1f} s" if half else "-") + ", idle connection "
     + (f"{idle[0]:.1f} s" if idle else "-"))
alive("the read timeouts")

# --- restart ---------------------------------------------------------------------------------------------
def snapshot():
    out = {}
    for a in list_all():
        s, h, p = request("GET", f"/v1/agents/{a['name']}")
        out[a["name"]] = (a["generation"], a["status"], a["applied_at"], json.dumps((jbody(p) or {}).get("manifest"), sort_keys=True))
    return out


# One agent whose capability the second configuration lacks.
ledger = None
if CONFIG_WITHOUT:
    ledger = named(TEMPLATE, "uses-ledger")
    ledger["spec"]["tools"][ti]["capability"] = "ledger"
    s, h, p = request("POST", "/v1/agents", ledger)
    check("an agent using capability 'ledger' (on the allowlist): 201", s == 201, f"HTTP {s} {short(p)}")
before = snapshot()
journal_before = ((jbody(request("GET", "/v1/journal?limit=1")[2]) or {}).get("digest") or {})
status = stop_node()
check("SIGTERM: the node exits with status 0", status == 0, f"status {status}")
err_text = stderr_text()
check("the node's stderr shows no internal failure", not re.search(r"exception|what\(\)|terminate called|sanitizer|"
      r"segmentation|core dumped", err_text, re.I), err_text[-500:])
start_node()
after = snapshot()
check(f"restart on the same data folder: the same {len(before)} agents, generations, times and manifests",
      before == after and len(before) > 25,
      f"only before: {sorted(set(before) - set(after))[:5]}, only after: {sorted(set(after) - set(before))[:5]}, "
      f"changed: {[k for k in before if k in after and before[k] != after[k]][:5]}")
s, h, p = request("GET", f"/v1/agents/{RUN_AGENT}/runs/{RUN_ID}")
check("after the restart the run is still there", s == 200 and not run_ok(jbody(p), RUN_AGENT, RUN_ID),
      f"HTTP {s} {short(p)}")
s, h, p = request("GET", "/v1/journal?limit=1")
journal_after = (jbody(p) or {}).get("digest") or {}
check("... and the journal holds at least the entries it had",
      s == 200 and journal_before.get("entries", -1) >= 1 and journal_after.get("entries", 0) >= journal_before["entries"],
      f"before {journal_before}, after HTTP {s} {journal_after}")
s, h, p = request("POST", "/v1/agents", named(TEMPLATE, NAME))
check("replacing after a restart continues the generation", s == 200 and (jbody(p) or {}).get("generation") == before[NAME][0] + 1,
      f"HTTP {s} {short(p)}")

if CONFIG_WITHOUT:
    check("SIGTERM again: status 0", stop_node() == 0)
    start_node(CONFIG_WITHOUT)
    listed = {a["name"]: a for a in list_all()}
    check("restart with 'ledger' off the allowlist: that agent is listed with status rejected",
          listed.get("uses-ledger", {}).get("status") == "rejected", str(listed.get("uses-ledger")))
    check("... the others stay idle", all(a["status"] == "idle" for n, a in listed.items() if n != "uses-ledger"),
          str([a for a in listed.values() if a["status"] != "idle"][:3]))
    check("... and the node logged it", "uses-ledger" in stderr_text(), stderr_text()[-300:])
    s, h, p = request("POST", "/v1/agents", ledger)
    check("... re-applying it now: 422 (capability not on the allowlist)", s == 422, f"HTTP {s}")
    s, h, p = request("DELETE", "/v1/agents/uses-ledger")
    check("... deleting it: 204", s == 204, f"HTTP {s}")
    check("SIGTERM: status 0", stop_node() == 0)
    start_node()

# --- SIGKILL in the middle of applies and deletes ---------------------------------------------------------------
def kill_round(rnd, workers=2, min_acks=40):
    acked_apply, acked_delete, inflight = {}, set(), set()
    lock = threading.Lock()
    stop = threading.Event()

    def worker(w):
        conn = http.client.HTTPConnection(HOST, PORT, timeout=10)
        i = 0
        while not stop.is_set():
            i += 1
            name = f"k{rnd}-w{w}-{i:05d}"
            op = ("DELETE", f"k{rnd}-w{w}-{i - 5:05d}") if i % 3 == 0 and i > 5 else ("POST", name)
            with lock:
                inflight.add(op)
            try:
                if op[0] == "POST":
                    conn.request("POST", "/v1/agents", body=json.dumps(named(TEMPLATE, name)),
                                 headers={"Content-Type": JSON_T, **bearer()})
                else:
                    conn.request("DELETE", f"/v1/agents/{op[1]}", headers=bearer())
                r = conn.getresponse()
                payload = r.read()
                with lock:
                    if op[0] == "POST" and r.status in (200, 201):
                        acked_apply[name] = json.loads(payload)["generation"]
                    elif op[0] == "DELETE" and r.status == 204:
                        acked_delete.add(op[1])
                    inflight.discard(op)
            except Exception:
                return
            # replace one agent over and over too: generations must not go back
            if i % 4 == 0:
                try:
                    conn.request("POST", "/v1/agents", body=json.dumps(named(TEMPLATE, f"k{rnd}-w{w}-hot")),
                                 headers={"Content-Type": JSON_T, **bearer()})
                    r = conn.getresponse()
                    payload = r.read()
                    if r.status in (200, 201):
                        with lock:
                            acked_apply[f"k{rnd}-w{w}-hot"] = json.loads(payload)["generation"]
                except Exception:
                    return

    ts = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(workers)]
    for t_ in ts:
        t_.start()
    deadline = time.monotonic() + 10
    target = min_acks + random.randint(0, 40)
    while time.monotonic() < deadline and len(acked_apply) < target:
        time.sleep(0.01)
    NODE.proc.kill()
    NODE.proc.wait()
    stop.set()
    for t_ in ts:
        t_.join(10)
    with lock:
        snapshot_apply, snapshot_delete = dict(acked_apply), set(acked_delete)
    start_node()
    present = {a["name"]: a["generation"] for a in list_all()}
    lost = [n for n, g in snapshot_apply.items() if n not in snapshot_delete and not n.endswith("hot")
            and n not in present and ("DELETE", n) not in inflight]
    back = [n for n, g in snapshot_apply.items() if n.endswith("hot") and present.get(n, 0) < g]
    undead = [n for n in snapshot_delete if n in present]
    check(f"SIGKILL round {rnd} after {len(snapshot_apply)} answered applies, {len(snapshot_delete)} deletes: "
          "every answered apply is there after the restart", snapshot_apply and not lost, f"lost {lost[:5]}")
    check(f"SIGKILL round {rnd}: no generation went back, no answered delete came back", not back and not undead,
          f"back {back}, undead {undead[:5]}")
    s, h, p = request("GET", "/healthz")
    check(f"SIGKILL round {rnd}: /healthz agrees with the list", (jbody(p) or {}).get("agents") == len(present), short(p))
    s, h, p = request("POST", "/v1/agents", named(TEMPLATE, f"after-kill-{rnd}"))
    check(f"SIGKILL round {rnd}: applies work after the restart", s == 201, f"HTTP {s}")


kill_round(1)
kill_round(2, workers=3)

# --- a data folder that cannot be written -------------------------------------------------------
check("SIGTERM: status 0", stop_node() == 0)
DATA2 = os.path.join(WORK, "data-full")
start_node(data=DATA2, max_file_bytes=96 * 1024)
created, failure = [], None
conn = http.client.HTTPConnection(HOST, PORT, timeout=20)
for i in range(400):
    name = f"full-{i:04d}"
    s, h, p = request("POST", "/v1/agents", named(TEMPLATE, name), conn=conn)
    if s == 201:
        created.append(name)
    else:
        failure = (name, s, h, p)
        break
conn.close()
if check("a data folder that cannot grow (as on a full disk): an apply is answered 500 internal",
         failure is not None and failure[1] == 500 and not is_problem(failure[1], failure[2], failure[3], "internal"),
         f"after {len(created)} applies: {failure[1] if failure else 'no failure'} "
         f"{is_problem(*failure[1:], 'internal') if failure else ''} {short(failure[3]) if failure else ''}"):
    m = LEAKS.search(failure[3].decode("utf-8", "replace"))
    check("... and its detail names no library or error text of one", not m, short(failure[3]))
    check("... the failed agent is not there", request("GET", f"/v1/agents/{failure[0]}")[0] == 404)
    s, h, p = request("POST", "/v1/agents", named(TEMPLATE, created[0]))
    s2, h2, p2 = request("GET", f"/v1/agents/{created[0]}")
    check("... a replace that cannot be written leaves the agent as it was (500, still generation 1)",
          s == 500 and (jbody(p2) or {}).get("generation") == 1 or s == 200 and (jbody(p2) or {}).get("generation") == 2,
          f"HTTP {s}; then generation {(jbody(p2) or {}).get('generation')}")
    check("... /healthz is still served, counting the agents that were written",
          (jbody(request("GET", "/healthz")[2]) or {}).get("agents") == len(created))
    check("... SIGTERM: status 0", stop_node() == 0)
    start_node(data=DATA2)
    check(f"... restarted without the limit: exactly the {len(created)} agents answered 201",
          [a["name"] for a in list_all()] == created, str([a["name"] for a in list_all()][-3:]))
else:
    stop_node(signal.SIGKILL)
    start_node(data=DATA2)

# --- the examples of the repository, through the API ---------------------------------------------
example_config = os.path.join(EXAMPLES, "volent.yaml")
if os.path.isfile(example_config) and os.path.isdir(os.path.join(EXAMPLES, "agents")):
    check("SIGTERM: status 0", stop_node() == 0)
    examples_data = os.path.join(WORK, "data-examples")
    start_node(config=example_config, data=examples_data)

    def apply_examples(only=None):
        answers = []
        for f in sorted(os.listdir(os.path.join(EXAMPLES, "agents"))):
            if f.endswith((".agent.yaml", ".agent.json")) and (only is None or f in only):
                s, h, p = request("POST", "/v1/agents", open(os.path.join(EXAMPLES, "agents", f), "rb").read(),
                                  JSON_T if f.endswith(".json") else YAML)
                answers.append((f, s, (jbody(p) or {}).get("name") if s == 201 else short(p, 300)))
        return answers

    answers = apply_examples()
    refused = {f: p for f, s, p in answers if s == 422}
    check("before their tools are in the store, the examples with a wasm tool are refused at its component "
          "and the others apply",
          set(refused) == {"refund.agent.yaml", "triage.agent.yaml"}
          and all(s == 201 for f, s, p in answers if f not in refused)
          and all("tool store holds no tool" in p and "/component" in p for p in refused.values()),
          str(answers))
    examples_built = args.modules and all(os.path.isfile(os.path.join(args.modules, t + ".wasm"))
                                          for t in ("refund_policy", "classify_language"))
    if examples_built:
        # The example's tool key is RFC 8032's test key 1, whose secret is public: examples only.
        rfc_key = os.path.join(WORK, "rfc8032-test-key-1")
        with open(rfc_key, "w") as f:
            f.write("ed25519-secret " + base64.b64encode(bytes.fromhex(
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")).decode() + "\n")
        os.chmod(rfc_key, 0o600)
        for tool in ("refund_policy", "classify_language"):
            module = os.path.join(args.modules, tool + ".wasm")
            sig = os.path.join(WORK, tool + ".sig")
            signed = subprocess.run([VOLENT, "tool", "sign", module, "--key", rfc_key, "-o", sig],
                                    capture_output=True, text=True)
            added = subprocess.run([VOLENT, "tool", "add", module, "--sig", sig, "--config", example_config,
                                    "--data-dir", examples_data], capture_output=True, text=True)
            check(f"the example tool {tool} is signed and added", signed.returncode == 0 and added.returncode == 0,
                  signed.stderr + added.stdout + added.stderr)
        answers = apply_examples(only=set(refused))
        check(f"with the example tools in the store, the other example manifests ({len(answers)}) apply: 201",
              answers and all(s == 201 for f, s, n in answers),
              str([a for a in answers if a[1] != 201]))
    else:
        note(f"the example tool modules are not built (--modules {args.modules}); "
             "the examples with wasm tools were checked only for their refusal")
else:
    note(f"no examples at {EXAMPLES}")

status = stop_node()
check("SIGTERM at the end: status 0", status == 0, f"status {status}")
first_err = open(os.path.join(WORK, "stderr.1"), errors="replace").read().splitlines()
check("exactly one 'listening on' line in the first run's stderr", sum(bool(VOLENT_NODE.match(l)) for l in first_err) == 1,
      str(first_err[:5]))
err_text = "".join(open(os.path.join(WORK, f"stderr.{i}"), errors="replace").read() for i in range(1, RUN + 1))
check("no run of the node printed an internal failure on stderr", not re.search(
    r"exception|what\(\)|terminate called|sanitizer|segmentation", err_text, re.I),
      (re.search(r".{0,200}(exception|what\(\)|terminate called|sanitizer|segmentation).{0,200}", err_text, re.I | re.S)
       or [""])[0])
check.finish("node_api: ", f" ({time.monotonic() - T0:.0f} s)")

