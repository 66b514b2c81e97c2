#!/usr/bin/env python3
"""Mutual TLS on the control API, from the outside (docs/control-api.md,
"Authentication and roles"; docs/decisions/0040-control-api-authentication.md).

  tests/volent/mtls_test.py --volent BIN

Starts `volent mock-model` and `volent node` with `control: {auth:
tokens+mtls, tls: {}}` (the node's own CA) on a fresh data folder and checks,
over real TLS connections:
  - the first start makes DATA/tls (ca.key and server.key mode 0600) and
    says where; the node listens on https://;
  - `volent credential certificate` issues a client certificate per role
    (CN=NAME, OU=ROLE) from that CA, its key mode 0600;
  - each role's certificate against every operation of the served OpenAPI
    document: 403 exactly where the operation's x-volent-role is beyond it;
  - a certificate from another CA (another data folder's), even one naming
    admin: the handshake fails, nothing is served;
  - no certificate and no token: 401 on every operation; a token alone
    still works (tokens+mtls);
  - plain HTTP to the TLS port: no HTTP answer;
  - an approval decided with a certificate: the journal's approval-decided
    entry names it (kind certificate, subject, fingerprint);
  - with auth mtls alone a client without a certificate is refused at the
    handshake.

Prints `ok N: ...`/`FAIL N: ...` and a summary; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binary.
"""
import argparse, http.client, json, os, re, socket, ssl, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, start_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description="Mutual TLS on the control API, from the outside.")
parser.add_argument("--volent", required=True, metavar="BIN")
args = parser.parse_args()
skip_unless_runs(args.volent, "node")
WORK = work_folder("volent-mtls-")
DATA = os.path.join(WORK, "data")
check = Checks(numbered=True)
ROLES = ("reader", "operator", "approver", "admin")
VOLENT_NODE_TLS = re.compile(r"^volent node: listening on https://(?P<host>[^:/\s]+):(?P<port>\d+)$", re.M)


def allowed(granted, needed):
    """The policy, written out apart from the node's."""
    return granted == "admin" or needed == "reader" or granted == needed


# --- the mock model, the configuration, the node ---------------------------------------------
MOCK_KEY = "sk-mtls-mock"
mock = start_server([args.volent, "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
                    os.path.join(WORK, "mock.stderr"), VOLENT_MOCK_MODEL)
with open(os.open(os.path.join(WORK, "mock.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(MOCK_KEY + "\n")


def with_mock(text):
    return text.replace("127.0.0.1:8480", f"127.0.0.1:{mock.port}").replace("port: 8480", f"port: {mock.port}")


BASE = with_mock(open(os.path.join(HERE, "fixtures", "volent.yaml")).read()) + \
    f"\nmodel_keys:\n  - capability: model.mock\n    key_file: {os.path.join(WORK, 'mock.key')}\n"
config = os.path.join(WORK, "volent.yaml")
with open(config, "w") as f:
    f.write(BASE + "control:\n  auth: tokens+mtls\n  tls: {}\n")
node = start_server([args.volent, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                    os.path.join(WORK, "node.stderr"), VOLENT_NODE_TLS)
PORT = node.port
TLS = os.path.join(DATA, "tls")
CA = os.path.join(TLS, "ca.crt")
check("the first start makes the node's CA and server certificate in DATA/tls (keys mode 0600), says where, and "
      "listens on https://",
      all(os.path.exists(os.path.join(TLS, f)) for f in ("ca.crt", "ca.key", "server.crt", "server.key"))
      and all(os.stat(os.path.join(TLS, f)).st_mode & 0o777 == 0o600 for f in ("ca.key", "server.key"))
      and TLS in node.stderr(), node.tail())
ADMIN = open(os.path.join(DATA, "bootstrap-admin.token")).read().strip()


def issue(data_dir, name, roles, prefix):
    argv = [args.volent, "credential", "certificate", "--data-dir", data_dir, "--name", name, "-o", prefix]
    for r in roles:
        argv += ["--role", r]
    return subprocess.run(argv, capture_output=True, text=True)


CERTS = {}
issued = []
for r in ROLES:
    prefix = os.path.join(WORK, f"cert-{r}")
    done = issue(DATA, f"{r}-person", [r], prefix)
    issued.append(done.returncode == 0 and os.stat(prefix + ".key").st_mode & 0o777 == 0o600
                  and f"CN={r}-person,OU={r}" in done.stderr)
    CERTS[r] = prefix
check("volent credential certificate issues one per role (CN=NAME,OU=ROLE), its key mode 0600", all(issued),
      str(issued))
again = issue(DATA, "again", ["reader"], CERTS["reader"])
check("... and refuses to overwrite an existing key file (exit 1)", again.returncode == 1, again.stderr[-200:])
usage = subprocess.run([args.volent, "credential", "certificate", "--data-dir", DATA, "--name", "x", "--role",
                        "king", "-o", os.path.join(WORK, "king")], capture_output=True, text=True)
check("... and an unknown role is a usage error (exit 2)", usage.returncode == 2, usage.stderr[-200:])

# Another CA: another data folder's own, with a certificate that names admin.
OTHER = os.path.join(WORK, "other-data")
other = issue(OTHER, "mallory", ["admin"], os.path.join(WORK, "other-admin"))
check("a certificate from another CA (another data folder's) is made", other.returncode == 0, other.stderr[-200:])


def context(cert=None):
    ctx = ssl.create_default_context(cafile=CA)
    if cert:
        ctx.load_cert_chain(cert + ".crt", cert + ".key")
    return ctx


def call(method, path, cert=None, token=None, body=None):
    """(status, headers, parsed body) of one request over TLS; raises on a failed handshake."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        headers["Content-Type"] = "application/json"
    c = http.client.HTTPSConnection("127.0.0.1", PORT, timeout=20, context=context(cert))
    try:
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        raw = r.read()
    finally:
        c.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw
    return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed


s, _, OPENAPI = call("GET", "/openapi.json", token=ADMIN)
OPS = [(m.upper(), path, op.get("x-volent-role"), "requestBody" in op)
       for path, item in (OPENAPI or {}).get("paths", {}).items() for m, op in item.items()]
check(f"over TLS with a token: the OpenAPI document lists {len(OPS)} operations, each with its role, and "
      "declares mutual TLS",
      s == 200 and len(OPS) > 20 and all(r in ROLES for _, _, r, _ in OPS)
      and any(v.get("type") == "mutualTLS" for v in OPENAPI.get("components", {}).get("securitySchemes", {}).values()),
      str(OPS)[:300])


def concrete(path):
    path = path.replace("/v1/credentials/{id}", "/v1/credentials/0123456789abcdef")
    return re.sub(r"\{(id|step)\}", "7", re.sub(r"\{name\}", "x", path)) + \
        ("?nonce=00" if path == "/v1/attestation" else "")


# --- each role's certificate against every operation -----------------------------------------------
wrongly = []
for method, path, needed, has_body in OPS:
    for granted in ROLES:
        s, _, p = call(method, concrete(path), cert=CERTS[granted], body={} if has_body else None)
        if allowed(granted, needed) == (s == 403) or s == 401:
            wrongly.append(f"{granted}: {method} {path} (needs {needed}): HTTP {s}")
        elif s == 403 and (p or {}).get("type") != "urn:volent:problem:forbidden":
            wrongly.append(f"{granted}: {method} {path}: 403 of type {(p or {}).get('type')}")
check(f"each role's certificate against every operation: 403 forbidden exactly beyond the role "
      f"({len(OPS) * 4} calls)", not wrongly, "; ".join(wrongly[:5]))

# --- refused: another CA, nothing at all, plain HTTP -------------------------------------------------
served = []
for method, path, _, has_body in OPS:
    try:
        s, _, _ = call(method, concrete(path), cert=os.path.join(WORK, "other-admin"), body={} if has_body else None)
        served.append(f"{method} {path}: HTTP {s}")
    except (ssl.SSLError, ConnectionError, http.client.HTTPException, OSError):
        pass  # refused in the handshake (TLS 1.3 may report it at the first read)
check(f"a certificate from another CA (naming admin) on every operation ({len(OPS)}): the handshake fails, "
      "nothing is served", not served, "; ".join(served[:5]))
unauth = []
for method, path, _, has_body in OPS:
    s, h, p = call(method, concrete(path), body={} if has_body else None)
    if s != 401 or (p or {}).get("type") != "urn:volent:problem:unauthorized":
        unauth.append(f"{method} {path}: HTTP {s}")
check(f"no certificate and no token on every operation ({len(OPS)}): 401 unauthorized", not unauth,
      "; ".join(unauth[:5]))
reader_token = call("POST", "/v1/credentials", token=ADMIN,
                    body={"name": "tok-reader", "roles": ["reader"], "ttl_seconds": 3600})[2].get("token", "")
s, _, _ = call("GET", "/v1/agents", token=reader_token)
check("tokens+mtls: a token alone still works over TLS", s == 200, f"HTTP {s}")

raw = socket.create_connection(("127.0.0.1", PORT), timeout=10)
answer = b""
try:
    raw.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {ADMIN}\r\n\r\n".encode())
    while len(answer) < 4096:
        chunk = raw.recv(4096)
        if not chunk:
            break
        answer += chunk
except OSError:
    pass
raw.close()
check("plain HTTP to the TLS port: no HTTP answer, the connection closes", not answer.startswith(b"HTTP/"),
      repr(answer[:100]))

# --- an approval decided with a certificate ---------------------------------------------------------
agent = with_mock(open(os.path.join(HERE, "fixtures", "agent.yaml")).read())
c = http.client.HTTPSConnection("127.0.0.1", PORT, timeout=20, context=context(CERTS["operator"]))
c.request("POST", "/v1/agents", body=agent.encode(), headers={"Content-Type": "application/yaml"})
r = c.getresponse()
applied = json.loads(r.read() or b"{}")
c.close()
check("an operator's certificate applies the agent: 201", r.status == 201, f"HTTP {r.status} {str(applied)[:200]}")
s, _, run = call("POST", f"/v1/agents/{applied.get('name', '')}/runs", cert=CERTS["operator"],
                 body={"id": "mtls-1", "input": {"order": 1}})
check("... and starts a run: 201", s == 201, f"HTTP {s} {run}")
pending, deadline = None, time.monotonic() + 20
while pending is None and time.monotonic() < deadline:
    s, _, p = call("GET", "/v1/approvals", cert=CERTS["reader"])
    pending = next((a for a in (p or {}).get("approvals", []) if a.get("run") == "mtls-1"), None)
    time.sleep(0.1)
check("the run's held call is listed to a reader's certificate", pending is not None, str(pending))
APPROVAL = (pending or {}).get("id", "0")
s, _, p = call("POST", f"/v1/approvals/{APPROVAL}/approve", cert=CERTS["operator"], body={})
check("an operator's certificate may not decide it: 403", s == 403, f"HTTP {s} {p}")
s, _, p = call("POST", f"/v1/approvals/{APPROVAL}/approve", cert=CERTS["approver"], body={"reason": "checked"})
check("an approver's certificate approves it: 200", s == 200, f"HTTP {s} {p}")
s, _, p = call("GET", "/v1/journal?limit=1000", cert=CERTS["reader"])
decided = next((e for e in (p or {}).get("entries", []) if e["kind"] == "approval-decided" and e["run"] == "mtls-1"), {})
identity = (decided.get("payload") or {}).get("identity", {})
with open(CERTS["approver"] + ".crt") as f:
    der = ssl.PEM_cert_to_DER_cert(f.read())
import hashlib  # noqa: E402
fingerprint = "sha256:" + hashlib.sha256(der).hexdigest()
check("the approval-decided entry names the certificate: kind, subject, fingerprint (SHA-256 of its DER), roles",
      identity == {"kind": "certificate", "subject": "CN=approver-person,OU=approver", "fingerprint": fingerprint,
                   "roles": ["approver"]}, str(decided)[:400])
s, _, run = call("POST", f"/v1/agents/{applied.get('name', '')}/runs", cert=CERTS["operator"],
                 body={"id": "mtls-2", "input": {"order": 2}})
pending, deadline = None, time.monotonic() + 20
while pending is None and time.monotonic() < deadline:
    s, _, p = call("GET", "/v1/approvals", cert=CERTS["reader"])
    pending = next((a for a in (p or {}).get("approvals", []) if a.get("run") == "mtls-2"), None)
    time.sleep(0.1)
env = {k: v for k, v in os.environ.items() if not k.startswith("VOLENT_TOKEN")}
approve = [args.volent, "approve", "--node", f"https://127.0.0.1:{PORT}", (pending or {}).get("id", "0"),
           "--ca", CA, "--reason", "checked over mutual TLS"]
no_cert = subprocess.run(approve, capture_output=True, text=True, env=env)
check("volent approve to the https:// node with neither a certificate nor a token: refused (exit 2)",
      no_cert.returncode == 2, no_cert.stdout + no_cert.stderr)
approved = subprocess.run(approve + ["--cert", CERTS["approver"] + ".crt", "--cert-key", CERTS["approver"] + ".key"],
                          capture_output=True, text=True, env=env)
check("volent approve with the approver's certificate (--ca, --cert, --cert-key): exit 0, approved, by the "
      "certificate", approved.returncode == 0 and approved.stdout.startswith("approved:")
      and "CN=approver-person" in approved.stdout, approved.stdout + approved.stderr)
status = node.stop()
check("SIGTERM ends the node with status 0", status == 0, f"exit status {status}")

# --- auth mtls alone: a certificate is required -------------------------------------------------------
mtls_config = os.path.join(WORK, "mtls.yaml")
with open(mtls_config, "w") as f:
    f.write(BASE + "control:\n  auth: mtls\n")
strict = start_server([args.volent, "node", "--config", mtls_config, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                      os.path.join(WORK, "strict.stderr"), VOLENT_NODE_TLS)
PORT = strict.port
try:
    s, _, _ = call("GET", "/v1/agents", token=ADMIN)
    refused = False
except (ssl.SSLError, ConnectionError, http.client.HTTPException, OSError):
    refused = True
check("auth mtls: a client without a certificate is refused at the handshake, even with a token", refused,
      "it was served")
s, _, _ = call("GET", "/v1/agents", cert=CERTS["reader"])
check("... and a certificate of the node's CA is served (the CA kept across restarts)", s == 200, f"HTTP {s}")
strict.stop()

# --- the configuration's own files; a key that is not the certificate's -------------------------------
bad_config = os.path.join(WORK, "bad.yaml")
with open(bad_config, "w") as f:
    f.write(BASE + f"control:\n  auth: tokens\n  tls:\n    certificate: {os.path.join(TLS, 'server.crt')}\n"
            f"    key: {os.path.join(TLS, 'ca.key')}\n")
bad = subprocess.run([args.volent, "node", "--config", bad_config, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                     capture_output=True, text=True, timeout=60)
check("a key that is not the certificate's: refused at start, saying so", bad.returncode != 0
      and "control.tls.key" in bad.stderr and "mismatch" in bad.stderr, bad.stderr[-300:])
mock.stop()
check.finish()
