#!/usr/bin/env python3
"""Who may operate a node, from the outside (docs/control-api.md,
"Authentication and roles"; docs/decisions/0040-control-api-authentication.md).

  tests/volent/auth_test.py --volent BIN --ampoule BIN

Starts `volent mock-model` and `volent node` (tests/volent/fixtures/volent.yaml
with the mock's port) on a fresh data folder and checks, over real sockets:
  - the first start writes a bootstrap admin token (mode 0600) and says
    where, never what;
  - every operation of the served OpenAPI document (so a new route cannot
    be forgotten) answers 401 with WWW-Authenticate without a credential
    and with a wrong, an expired and a revoked token;
  - each role (reader, operator, approver, admin) against every operation:
    403 exactly where the operation's x-volent-role is beyond it;
  - a run's held tool call: an operator may not decide it; `volent
    approve` (token from a file, key from `ampoule keygen`) approves it
    signed; the journal's approval-decided entry names the token's id and
    name; `volent approve --verify` checks it off the node (a copy of the
    journal) with the approver's public key: VERIFIED, and FAILED once the
    call's arguments or the signature are changed in the copy;
  - credential creation and revocation are journaled;
  - brute force: wrong tokens from one address end in 429 with
    Retry-After, while the right token is still served from that address
    and another address is unaffected; the failures are journaled in one
    auth-failures summary naming the address;
  - no token appears in the node's output, the journal, or any answer but
    its creation's;
  - development mode: refused on a non-loopback address; on loopback it
    serves without credentials and says so at start and in /healthz.

Prints `ok N: ...`/`FAIL N: ...` and a summary; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binaries.
"""
import argparse, http.client, json, os, re, shutil, sqlite3, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import register_token  # noqa: E402
from harness.servers import VOLENT_MOCK_MODEL, VOLENT_NODE, start_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description="Authentication and roles of the control API, from the outside.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--ampoule", required=True, metavar="BIN")
args = parser.parse_args()
skip_unless_runs(args.volent, "node")
skip_unless_runs(args.ampoule, "keygen")
WORK = work_folder("volent-auth-")
DATA = os.path.join(WORK, "data")
check = Checks(numbered=True)
ROLES = ("reader", "operator", "approver", "admin")


def allowed(granted, needed):
    """The policy, written out apart from the node's."""
    return granted == "admin" or needed == "reader" or granted == needed


# --- the mock model, the configuration, the node ---------------------------------------------
MOCK_KEY = "sk-auth-mock"
mock = start_server([args.volent, "mock-model", "--listen", "127.0.0.1:0", "--api-key", MOCK_KEY],
                    os.path.join(WORK, "mock.stderr"), VOLENT_MOCK_MODEL)
with open(os.open(os.path.join(WORK, "mock.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(MOCK_KEY + "\n")


def with_mock(text):
    return text.replace("127.0.0.1:8480", f"127.0.0.1:{mock.port}").replace("port: 8480", f"port: {mock.port}")


config = os.path.join(WORK, "volent.yaml")
with open(config, "w") as f:
    f.write(with_mock(open(os.path.join(HERE, "fixtures", "volent.yaml")).read())
            + f"\nmodel_keys:\n  - capability: model.mock\n    key_file: {os.path.join(WORK, 'mock.key')}\n")
node = start_server([args.volent, "node", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", DATA],
                    os.path.join(WORK, "node.stderr"), VOLENT_NODE)
PORT = node.port
register_token(PORT, None)  # every request below names its own credential
TOKENS = []                 # every token seen, to look for later
bootstrap_file = os.path.join(DATA, "bootstrap-admin.token")
ADMIN = open(bootstrap_file).read().strip() if os.path.exists(bootstrap_file) else ""
TOKENS.append(ADMIN)
check("the first start writes a bootstrap admin token, mode 0600, and says where",
      re.fullmatch(r"vlt_[0-9a-f]{16}_[0-9a-f]{64}", ADMIN) is not None
      and os.stat(bootstrap_file).st_mode & 0o777 == 0o600 and bootstrap_file in node.stderr(), node.tail())


def call(method, path, token=None, body=None, source="127.0.0.1", authorization=None):
    """(status, headers, parsed body or raw bytes) of one request from `source`."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if authorization:
        headers["Authorization"] = authorization
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=20, source_address=(source, 0))
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


def make_token(name, roles, ttl=3600, approval_key=None):
    body = {"name": name, "roles": list(roles), "ttl_seconds": ttl}
    if approval_key:
        body["approval_key"] = approval_key
    s, _, p = call("POST", "/v1/credentials", ADMIN, body)
    if s != 201:
        check(f"POST /v1/credentials {name}: 201", False, f"HTTP {s} {p}")
        return "", ""
    TOKENS.append(p["token"])
    return p["token"], p["id"]


# --- every operation: no credential, wrong, expired, revoked -------------------------------------
s, _, OPENAPI = call("GET", "/openapi.json", ADMIN)
OPS = [(m.upper(), path, op.get("x-volent-role"), "requestBody" in op)
       for path, item in (OPENAPI or {}).get("paths", {}).items() for m, op in item.items()]
check(f"the OpenAPI document lists {len(OPS)} operations, each with its role",
      s == 200 and len(OPS) > 20 and all(r in ROLES for _, _, r, _ in OPS), str(OPS)[:300])


def concrete(path):
    path = path.replace("/v1/credentials/{id}", "/v1/credentials/0123456789abcdef")
    return re.sub(r"\{(id|step)\}", "7", re.sub(r"\{name\}", "x", path)) + \
        ("?nonce=00" if path == "/v1/attestation" else "")


# A fresh address and a fresh token id for each attempt: the failure limits
# (per address, per token id) are checked below, not here.
EXPIRED = [make_token(f"expires-at-once-{i}", ["admin"], ttl=1)[0] for i in range(len(OPS))]
REVOKED = []
for i in range(len(OPS)):
    token, token_id = make_token(f"revoked-at-once-{i}", ["admin"])
    s, _, _ = call("POST", f"/v1/credentials/{token_id}/revoke", ADMIN)
    REVOKED.append(token)
check("POST /v1/credentials/{id}/revoke: 200", s == 200, f"HTTP {s}")
wrong = ADMIN[:-1] + ("0" if ADMIN[-1] != "0" else "1")
time.sleep(1.2)
source = 0
refusals = []
for i, (method, path, role, has_body) in enumerate(OPS):
    BAD = {"no credential": None, "a wrong token": f"vlt_{i:016x}_" + "b" * 64, "an expired token": EXPIRED[i],
           "a revoked token": REVOKED[i]}
    for what, token in BAD.items():
        source += 1
        s, h, p = call(method, concrete(path), token, {} if has_body else None,
                       source=f"127.0.{1 + source // 250}.{1 + source % 250}")
        ok = s == 401 and h.get("www-authenticate", "").startswith('Bearer realm="volent"') \
            and isinstance(p, dict) and p.get("type") == "urn:volent:problem:unauthorized"
        if not ok:
            refusals.append(f"{what}: {method} {path}: HTTP {s} {h.get('www-authenticate')!r}")
check(f"every operation ({len(OPS)}) answers 401 unauthorized with WWW-Authenticate to no credential, a wrong, "
      "an expired and a revoked token", not refusals, "; ".join(refusals[:5]))

# --- each role against every operation ---------------------------------------------------------------
ROLE_TOKENS = {r: make_token(f"role-{r}", [r])[0] for r in ROLES}
wrongly = []
for method, path, needed, has_body in OPS:
    for granted, token in ROLE_TOKENS.items():
        s, _, p = call(method, concrete(path), token, {} if has_body else None)
        if allowed(granted, needed) == (s == 403) or s == 401:
            wrongly.append(f"{granted}: {method} {path} (needs {needed}): HTTP {s}")
        elif s == 403 and (p or {}).get("type") != "urn:volent:problem:forbidden":
            wrongly.append(f"{granted}: {method} {path}: 403 of type {(p or {}).get('type')}")
check(f"each role against every operation: 403 forbidden exactly beyond the role ({len(OPS) * 4} calls)",
      not wrongly, "; ".join(wrongly[:5]))

# --- a held call: attributed, signed, verified off the node ------------------------------------------
subprocess.run([args.ampoule, "keygen", "-o", os.path.join(WORK, "approver.key")], check=True, capture_output=True)
pub_line = open(os.path.join(WORK, "approver.key.pub")).read().split()
APPROVER_KEY = pub_line[pub_line.index("ed25519") + 1]
approver, approver_id = make_token("alice (approver)", ["approver"], approval_key=APPROVER_KEY)
token_file = os.path.join(WORK, "alice.token")
with open(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(approver + "\n")
agent = with_mock(open(os.path.join(HERE, "fixtures", "agent.yaml")).read())
c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=20)
c.request("POST", "/v1/agents", body=agent.encode(),
          headers={"Content-Type": "application/yaml", "Authorization": f"Bearer {ROLE_TOKENS['operator']}"})
r = c.getresponse()
applied = json.loads(r.read() or b"{}")
c.close()
check("an operator applies the agent: 201", r.status == 201, f"HTTP {r.status} {str(applied)[:200]}")
AGENT_NAME = applied.get("name", "")
s, _, run = call("POST", f"/v1/agents/{AGENT_NAME}/runs", ROLE_TOKENS["operator"], {"id": "auth-1", "input": {"order": 1}})
check("an operator starts a run: 201", s == 201, f"HTTP {s} {run}")
pending, deadline = None, time.monotonic() + 20
while pending is None and time.monotonic() < deadline:
    s, _, p = call("GET", "/v1/approvals", ROLE_TOKENS["reader"])
    pending = next((a for a in (p or {}).get("approvals", []) if a.get("run") == "auth-1"), None)
    time.sleep(0.1)
check("the run's held call is listed to a reader, with its call digest",
      pending is not None and re.fullmatch(r"sha256:[0-9a-f]{64}", pending.get("call_digest", "")), str(pending))
APPROVAL = (pending or {}).get("id", "0")
s, _, p = call("POST", f"/v1/approvals/{APPROVAL}/approve", ROLE_TOKENS["operator"], {})
check("an operator may not decide it: 403", s == 403, f"HTTP {s} {p}")
s, _, p = call("POST", f"/v1/approvals/{APPROVAL}/approve", approver, {})
check("the approver's credential has a key: an unsigned decision is refused (422 at /signature)",
      s == 422 and [e.get("pointer") for e in (p or {}).get("errors", [])] == ["/signature"], f"HTTP {s} {p}")
on_line = subprocess.run([args.volent, "approve", "--node", f"http://127.0.0.1:{PORT}", APPROVAL,
                          "--token", approver], capture_output=True, text=True)
check("volent approve refuses a token on the command line (exit 2)", on_line.returncode == 2, on_line.stderr[-200:])
env = {k: v for k, v in os.environ.items() if not k.startswith("VOLENT_TOKEN")}
approved = subprocess.run([args.volent, "approve", "--node", f"http://127.0.0.1:{PORT}", APPROVAL, "--reason",
                           "checked the order", "--key", os.path.join(WORK, "approver.key")],
                          capture_output=True, text=True, env={**env, "VOLENT_TOKEN_FILE": token_file})
check("volent approve (token from VOLENT_TOKEN_FILE, signed with the approver's key): exit 0, approved",
      approved.returncode == 0 and approved.stdout.startswith("approved: approval " + APPROVAL),
      approved.stdout + approved.stderr)
s, _, p = call("GET", "/v1/journal?limit=1000", ROLE_TOKENS["reader"])
JOURNAL = (p or {}).get("entries", [])
decided = next((e for e in JOURNAL if e["kind"] == "approval-decided" and e["run"] == "auth-1"), {})
identity = (decided.get("payload") or {}).get("identity", {})
check("the approval-decided entry names the authenticated identity: the token's id and name, its roles",
      identity == {"kind": "token", "token_id": approver_id, "name": "alice (approver)", "roles": ["approver"]}
      and decided["payload"].get("by") == f"token {approver_id} (alice (approver))", str(decided)[:400])
check("... and carries the approver's signature with the call digest",
      (decided.get("payload") or {}).get("signature", {}).get("public_key") == APPROVER_KEY
      and decided["payload"]["signature"].get("call_digest") == (pending or {}).get("call_digest"), str(decided)[:400])


def verify(data_dir, key=True):
    argv = [args.volent, "approve", "--verify", "--data-dir", data_dir, APPROVAL]
    if key:
        argv += ["--key", os.path.join(WORK, "approver.key.pub")]
    return subprocess.run(argv, capture_output=True, text=True)


v = verify(DATA)
check("volent approve --verify with the approver's public key: VERIFIED (exit 0)",
      v.returncode == 0 and v.stdout.startswith("VERIFIED"), v.stdout + v.stderr)


def tampered_copy(name, sql):
    folder = os.path.join(WORK, name)
    os.makedirs(folder)
    for f in os.listdir(DATA):
        if f.startswith("journal.db"):
            shutil.copy(os.path.join(DATA, f), folder)
    db = sqlite3.connect(os.path.join(folder, "journal.db"))
    db.execute(sql)
    db.commit()
    db.close()
    return folder


requested = next((e for e in JOURNAL if e["kind"] == "approval-requested" and e["run"] == "auth-1"), {})
args_changed = json.dumps({**requested.get("payload", {}), "arguments": {"amount_cents": 999999}},
                          separators=(",", ":"), sort_keys=True)
v = verify(tampered_copy("changed-call", f"UPDATE entries SET payload = '{args_changed}' WHERE seq = {APPROVAL}"))
check("... FAILED (exit 1) once the call's arguments are changed in a copy of the journal",
      v.returncode == 1 and v.stdout.startswith("FAILED"), v.stdout + v.stderr)
sig = decided.get("payload", {}).get("signature", {}).get("sig", "")
forged = sig[:10] + ("A" if sig[10] != "A" else "B") + sig[11:]
v = verify(tampered_copy("changed-signature",
                         f"UPDATE entries SET payload = replace(payload, '{sig}', '{forged}') WHERE seq = {decided.get('seq', 0)}"))
check("... FAILED (exit 1) once the signature is changed", v.returncode == 1 and v.stdout.startswith("FAILED"),
      v.stdout + v.stderr)
other = subprocess.run([args.ampoule, "keygen", "-o", os.path.join(WORK, "other.key")], capture_output=True)
v = subprocess.run([args.volent, "approve", "--verify", "--data-dir", DATA, APPROVAL, "--key",
                    os.path.join(WORK, "other.key.pub")], capture_output=True, text=True)
check("... FAILED against another person's key", v.returncode == 1 and v.stdout.startswith("FAILED"), v.stdout)

v = verify(DATA)
check("... and it says who decided: the deciding token, named by the signed statement",
      v.returncode == 0 and f"by token:{approver_id}" in v.stdout and f"names token:{approver_id}" in v.stdout,
      v.stdout)

# --- Alice's key does not vouch for Bob's decision ---------------------------------------------------
bob, bob_id = make_token("bob (approver)", ["approver"])
bob_file = os.path.join(WORK, "bob.token")
with open(os.open(bob_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(bob + "\n")
s, _, run2 = call("POST", f"/v1/agents/{AGENT_NAME}/runs", ROLE_TOKENS["operator"], {"id": "auth-2", "input": {"order": 2}})
pending2, deadline = None, time.monotonic() + 20
while pending2 is None and time.monotonic() < deadline:
    s, _, p = call("GET", "/v1/approvals", ROLE_TOKENS["reader"])
    pending2 = next((a for a in (p or {}).get("approvals", []) if a.get("run") == "auth-2"), None)
    time.sleep(0.1)
APPROVAL2 = (pending2 or {}).get("id", "0")
by_bob = subprocess.run([args.volent, "approve", "--node", f"http://127.0.0.1:{PORT}", APPROVAL2,
                         "--key", os.path.join(WORK, "approver.key")],
                        capture_output=True, text=True, env={**env, "VOLENT_TOKEN_FILE": bob_file})
s, _, p = call("GET", f"/v1/approvals/{APPROVAL2}", ROLE_TOKENS["reader"])
check("Bob's token (no approval key) deciding with a signature by Alice's registered key: refused (exit 1, 422), "
      "still pending", by_bob.returncode == 1 and "no registered approval key" in by_bob.stderr
      and (p or {}).get("state") == "pending", by_bob.stdout + by_bob.stderr + str(p)[:200])

# --- an offline credential command beside the running node ---------------------------------------------
before = open(os.path.join(DATA, "credentials.json"), "rb").read()
offline_token = os.path.join(WORK, "offline.token")
offline = subprocess.run([args.volent, "credential", "create", "--data-dir", DATA, "--name", "offline",
                          "--role", "admin", "-o", offline_token], capture_output=True, text=True)
check("volent credential create on the running node's data folder: refused (exit 1), naming the node and the API, "
      "nothing written", offline.returncode == 1 and "in use by volent node, pid" in offline.stderr
      and "POST /v1/credentials" in offline.stderr and not os.path.exists(offline_token)
      and open(os.path.join(DATA, "credentials.json"), "rb").read() == before, offline.stderr)

kinds = [e["kind"] for e in JOURNAL]
check("credential creations and the revocation are journaled (credential-created, credential-revoked)",
      kinds.count("credential-created") >= 8 and kinds.count("credential-revoked") == len(REVOKED),
      str([k for k in kinds if k.startswith("credential")]))

# --- brute force ---------------------------------------------------------------------------------------
statuses = [call("GET", "/v1/agents", wrong, source="127.0.9.9")[0] for _ in range(14)]
s, h, p = call("GET", "/v1/agents", ROLE_TOKENS["reader"], source="127.0.9.9")
s2, h2, _ = call("GET", "/v1/agents", wrong, source="127.0.9.9")
check("wrong tokens from one address: 401s, then 429 with Retry-After for a wrong token, but the right one is served",
      statuses[:10] == [401] * 10 and 429 in statuses and s2 == 429 and int(h2.get("retry-after", "0")) >= 1
      and s == 200, f"{statuses} then right {s}, wrong {s2} {h2.get('retry-after')}")
s, _, _ = call("GET", "/v1/agents", "vlt_" + "f" * 16 + "_" + "b" * 64, source="127.0.9.10")
check("... while another address is not limited", s == 401, f"HTTP {s}")
s, _, p = call("GET", "/v1/journal?limit=1000", ROLE_TOKENS["reader"])
failures = [e for e in (p or {}).get("entries", []) if e["kind"] == "auth-failures"]
check("... and the journal holds one auth-failures summary so far (the first failure's, at once), not one per try "
      "or per address", len(failures) == 1, str(failures)[:300])

# --- no token anywhere it should not be -----------------------------------------------------------------
s, _, creds = call("GET", "/v1/credentials", ADMIN)
s2, _, journal = call("GET", "/v1/journal?limit=1000", ADMIN)
status = node.stop()
check("SIGTERM ends the node with status 0", status == 0, f"exit status {status}")
db = sqlite3.connect(os.path.join(DATA, "journal.db"))
summaries = [json.loads(p) for (p,) in db.execute("SELECT payload FROM entries WHERE kind = 'auth-failures'")]
db.close()
named = [a for e in summaries for a in e.get("top_addresses", []) if a.get("address") == "127.0.9.9"]
check("at the stop the rest is journaled: two summaries, the second naming the brute-forcing address with its 15 "
      "failures and refusals", len(summaries) == 2 and named and named[0]["failures"] + named[0]["refused"] == 15,
      str(summaries)[:400])
seen = json.dumps(creds) + json.dumps(journal) + node.stderr() + open(os.path.join(DATA, "credentials.json")).read()
leaked = [t[:24] for t in TOKENS if t and t.split("_")[-1] in seen]
check(f"no token ({len(TOKENS)}) in the node's output, the journal, the credentials list or file", not leaked,
      str(leaked))

# --- development mode ---------------------------------------------------------------------------------
dev_config = os.path.join(WORK, "dev.yaml")
with open(dev_config, "w") as f:
    f.write(open(config).read() + "\ncontrol:\n  development_no_auth: true\n")
refused = subprocess.run([args.volent, "node", "--config", dev_config, "--listen", "0.0.0.0:0", "--data-dir",
                          os.path.join(WORK, "dev-data")], capture_output=True, text=True, timeout=60)
check("development mode on a non-loopback address: refused at start (exit 2), saying why",
      refused.returncode == 2 and "loopback" in refused.stderr, refused.stderr[-300:])
dev = start_server([args.volent, "node", "--config", dev_config, "--listen", "127.0.0.1:0", "--data-dir",
                    os.path.join(WORK, "dev-data")], os.path.join(WORK, "dev.stderr"), VOLENT_NODE)
register_token(dev.port, None)
c = http.client.HTTPConnection("127.0.0.1", dev.port, timeout=20)
c.request("GET", "/healthz")
r = c.getresponse()
health = json.loads(r.read())
check("development mode on loopback: served without credentials, /healthz says auth none (development), and the "
      "start says so", r.status == 200 and health.get("auth") == "none (development)"
      and "DEVELOPMENT MODE" in dev.stderr(), f"HTTP {r.status} {health} {dev.tail()}")
c.close()
dev.stop()
mock.stop()
check.finish()
