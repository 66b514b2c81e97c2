#!/usr/bin/env python3
"""The attestation report from the outside (docs/attestation.md).

  tests/volent/attest_test.py --volent BIN

Starts its own software TPMs (swtpm) and nodes on them, and checks that:
  - GET /v1/attestation?nonce=N and `volent attest --config` give a signed
    report with a TPM quote, the node's PCR log and its allowlist, and
    `volent attest --verify POLICY REPORT --nonce N` says VERIFIED (exit 0,
    last line);
  - the quote passes tpm2_checkquote (tpm2-tools), a verifier that is not
    ours (signature and nonce), and its PCR digest is SHA-256 of the
    report's values, by this script's own reading of the TPM structure;
  - each failed claim is named: a stale nonce (nonce, tpm.quote), a dev-only
    key against a production policy (key.provenance), an allowlist the
    policy does not allow (egress.allowlist), a PCR value it does not allow
    (pcrs.N), a quote from another TPM (tpm.quote ak_not_expected), a
    forged envelope and one signed by another key (signature);
  - credential activation: a credential made off the node for the report's
    AK under its EK (tpm2_makecredential, in software) gives its secret
    back through POST /v1/attestation/credential; one for another AK is
    refused;
  - the report's trust configuration names the DNS server (the system
    resolver, or the one volent.yaml names); a policy pinning another fails
    (egress.dns_server), one pinning the node's own verifies;
  - a node restarted in the same boot still verifies (its PCR log holds two
    whole starts, each judged);
  - a node without a TPM gives an honest report (no quote, the reason), which
    a policy requiring a TPM fails and one that does not verifies;
  - a policy with an unknown field is an error (exit 2), not a skipped claim.

Prints `ok N: ...`/`FAIL N: ...` per check; exit 1 on any failure;
`skipped: REASON` (exit 0) without the binary or swtpm.
"""
import argparse, base64, hashlib, json, os, shutil, socket, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import die_with_parent, kill_at_exit, work_folder  # noqa: E402
from harness.http_client import api as request  # noqa: E402
from harness.servers import VOLENT_NODE, start_server  # noqa: E402

parser = argparse.ArgumentParser(description="attestation reports of `volent node`.")
parser.add_argument("--volent", required=True, metavar="BIN")
VOLENT = parser.parse_args().volent
skip_unless_runs(VOLENT, "node", "attest")
if shutil.which("swtpm") is None:
    skip("swtpm is not installed (scripts/setup.sh installs swtpm)")

WORK = work_folder("volent-attest-")
check = Checks(numbered=True)


def free_port_pair():
    """Two consecutive free loopback ports (swtpm's command and control)."""
    import random
    for _ in range(100):
        port = random.randrange(20000, 60000, 2)
        a, b = socket.socket(), socket.socket()
        try:
            a.bind(("127.0.0.1", port))
            b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
        finally:
            a.close()
            b.close()
    raise RuntimeError("no free port pair")


def start_swtpm(name):
    """A fresh swtpm; its TCTI string."""
    state = os.path.join(WORK, name)
    os.makedirs(state)
    port = free_port_pair()
    # Started directly (not under `timeout`), so that stopping the process
    # stops swtpm; it also dies with this script (die_with_parent).
    proc = subprocess.Popen(["swtpm", "socket", "--tpm2", "--server", f"type=tcp,port={port}",
                             "--ctrl", f"type=tcp,port={port + 1}", "--tpmstate", f"dir={state}",
                             "--flags", "not-need-init,startup-clear"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, name + ".log"), "w"),
                            preexec_fn=die_with_parent)
    kill_at_exit(proc)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return f"swtpm:host=127.0.0.1,port={port}"
        time.sleep(0.05)
    raise RuntimeError(f"swtpm did not listen on {port}")


def write(name, text, mode=0o644):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def config(name, tpm, dns_server=None):
    dns = f"\n  dns_server: {dns_server}" if dns_server else ""
    return write(f"{name}/volent.yaml", f"""apiVersion: volent/v1
kind: NodeConfig
data_dir: data
egress:{dns}
  allow:
    - capability: orders.internal
      scheme: http
      cidr: 10.0.0.0/24
      port: 8080
attestation:
  tpm: "{tpm}"
""")


STARTED = 0


def start_node(cfg):
    global STARTED
    STARTED += 1
    # --data-dir named (the configuration's own, data/ beside it) so that the
    # harness finds the node's bootstrap token there and authenticates.
    return start_server([VOLENT, "node", "--config", cfg, "--listen", "127.0.0.1:0",
                         "--data-dir", os.path.join(os.path.dirname(cfg), "data")],
                        os.path.join(WORK, f"node.{STARTED}.stderr"), VOLENT_NODE)


def report_of(port, nonce, name):
    s, body = request(port, "GET", f"/v1/attestation?nonce={nonce}")
    path = write(name, json.dumps(body) if isinstance(body, dict) else "")
    return s, body, path


def verify(policy, report, nonce=None):
    args = [VOLENT, "attest", "--verify", policy, report] + (["--nonce", nonce] if nonce else [])
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    lines = r.stdout.strip().splitlines()
    return r.returncode, (lines[-1] if lines else ""), r.stdout + r.stderr


def claims(out):
    return {line.split(":", 1)[0][6:] for line in out.splitlines() if line.startswith("claim ")}


def quoted_pcr_digest(attest):
    """pcrDigest of a TPMS_ATTEST of type quote (TPM 2.0 Part 2, 10.12), big-endian."""
    pos = 4 + 2  # magic, type
    for _ in range(2):  # qualifiedSigner, extraData: TPM2B
        pos += 2 + int.from_bytes(attest[pos:pos + 2], "big")
    pos += 8 + 4 + 4 + 1 + 8  # clockInfo, firmwareVersion
    count = int.from_bytes(attest[pos:pos + 4], "big")
    pos += 4
    for _ in range(count):  # TPMS_PCR_SELECTION: hash, sizeofSelect, pcrSelect
        pos += 2 + 1 + attest[pos + 2]
    size = int.from_bytes(attest[pos:pos + 2], "big")
    return attest[pos + 2:pos + 2 + size]


def predicate(envelope):
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


def node_public_key(folder):
    with open(os.path.join(WORK, folder, "data", "node.key.pub")) as f:
        return f.read().split()[-1]


ALLOWED = [{"capability": "orders.internal", "scheme": "http", "cidr": "10.0.0.0/24", "port": 8080}]


def policy(name, signer, **fields):
    return write(name, json.dumps(dict({"signers": [signer]}, **fields)), 0o600)


# --- a node on a TPM -----------------------------------------------------------------------------------
TPM_A = start_swtpm("tpm-a")
CFG_A = config("a", TPM_A)
node = start_node(CFG_A)
NONCE = "3f9a0c1e5b7d2468"
s, env, REPORT = report_of(node.port, NONCE, "a/report.json")
check("GET /v1/attestation?nonce=N: 200, a DSSE envelope", s == 200 and isinstance(env, dict)
      and env.get("payloadType") == "application/vnd.in-toto+json", f"HTTP {s} {str(env)[:300]}")
pred = predicate(env) if s == 200 else {}
tpm = pred.get("tpm", {})
check("the report carries the nonce, a quote of PCRs 0-15, the AK and the node's PCR log",
      pred.get("nonce") == NONCE and tpm.get("present") is True and len(tpm.get("quote", {}).get("pcrs", {})) == 16
      and tpm.get("ak", {}).get("pem", "").startswith("-----BEGIN PUBLIC KEY-----")
      and [e["kind"] for e in tpm.get("node", {}).get("events", [])][:4]
      == ["node-start", "volent-binary", "egress-allowlist", "node-trust"],
      json.dumps(pred)[:600])
check("... the allowlist as written, its digest, the journal's digest, a dev-only key, unsealed",
      pred.get("egress", {}).get("allowlist") == ALLOWED and len(pred.get("egress", {}).get("sha256", "")) == 64
      and pred.get("journal", {}).get("head", "").startswith("sha256:") and pred.get("key", {}).get("provenance") == "dev-only"
      and pred.get("boot", {}).get("profile") == "unsealed", json.dumps(pred)[:600])
s, body = request(node.port, "GET", "/v1/attestation")
check("without a nonce: 400", s == 400, f"HTTP {s} {body}")
s, body = request(node.port, "GET", "/v1/attestation?nonce=" + "ab" * 33)
check("a nonce over 32 bytes: 400", s == 400, f"HTTP {s} {body}")

KEY_A = node_public_key("a")
GOOD = policy("policy/good.json", KEY_A, max_age_seconds=600, tpm="required", key_provenance="dev-only",
              boot_profiles=["unsealed"], allowlist={"subset_of": ALLOWED})
rc, last, out = verify(GOOD, REPORT, NONCE)
check("volent attest --verify: VERIFIED, exit 0", rc == 0 and last == "VERIFIED", out)

# tpm2_checkquote: the quote checked by tpm2-tools.
if shutil.which("tpm2_checkquote"):
    q = tpm["quote"]
    ak = write("checkquote/ak.pem", tpm["ak"]["pem"])
    msg, sig = os.path.join(WORK, "checkquote/attest.bin"), os.path.join(WORK, "checkquote/signature.bin")
    with open(msg, "wb") as f:
        f.write(base64.b64decode(q["attest"]))
    with open(sig, "wb") as f:
        f.write(base64.b64decode(q["signature"]))

    def checkquote(nonce):
        return subprocess.run(["tpm2_checkquote", "--public=" + ak, "--message=" + msg, "--signature=" + sig,
                               "--hash-algorithm=sha256", "--qualification=" + nonce],
                              capture_output=True, text=True, timeout=60)
    r = checkquote(NONCE)
    check("tpm2_checkquote (tpm2-tools) accepts the quote: the AK signed it, for this nonce",
          r.returncode == 0, r.stdout + r.stderr)
    r = checkquote("00" + NONCE)
    check("... and refuses it for another nonce", r.returncode != 0, r.stdout + r.stderr)
    # tpm2-tools 5.4 cannot hash more than 8 PCR values from a file, so the
    # PCR digest is checked here, by this script's own reading of TPMS_ATTEST.
    check("the quoted PCR digest is SHA-256 of the report's 16 values (read independently of the node's code)",
          quoted_pcr_digest(base64.b64decode(q["attest"]))
          == hashlib.sha256(b"".join(bytes.fromhex(q["pcrs"][str(i)]) for i in range(16))).digest(),
          json.dumps(q["pcrs"])[:200])
else:
    print("note: tpm2_checkquote is not installed (tpm2-tools); the independent check is skipped")

# The CLI on the node's host makes the same kind of report while the node runs.
r = subprocess.run([VOLENT, "attest", "--config", CFG_A, "--nonce", "aa55", "-o", os.path.join(WORK, "a/cli.json")],
                   capture_output=True, text=True, timeout=60)
rc, last, out = verify(GOOD, os.path.join(WORK, "a/cli.json"), "aa55")
check("volent attest --config on the host: a report that verifies", r.returncode == 0 and rc == 0 and last == "VERIFIED",
      r.stderr + out)

# --- each failed claim named ----------------------------------------------------------------------------
rc, last, out = verify(GOOD, REPORT, "00" + NONCE)
check("a stale nonce: FAILED, claims nonce and tpm.quote (nonce_mismatch)", rc == 1 and last == "FAILED"
      and {"nonce", "tpm.quote"} <= claims(out) and "nonce_mismatch" in out, out)
rc, last, out = verify(policy("policy/production.json", KEY_A, key_provenance="production"), REPORT, NONCE)
check("a dev-only key against a production policy: claim key.provenance", rc == 1 and claims(out) == {"key.provenance"}, out)
other = [{"capability": "orders.internal", "scheme": "http", "cidr": "10.0.0.0/25", "port": 8080}]
check("the trust configuration: the system resolver, no proxy, its digest",
      pred.get("trust", {}).get("config", {}).get("egress", {}).get("dns_server") == "system"
      and pred["trust"]["config"]["egress"].get("proxy") == "none" and len(pred["trust"].get("sha256", "")) == 64,
      json.dumps(pred.get("trust"))[:600])
rc, last, out = verify(policy("policy/dns.json", KEY_A, egress={"dns_server": "192.0.2.53"}), REPORT, NONCE)
check("a DNS server the policy does not pin: claim egress.dns_server", rc == 1 and claims(out) == {"egress.dns_server"}, out)
rc, last, out = verify(policy("policy/allowlist.json", KEY_A, allowlist={"subset_of": other}), REPORT, NONCE)
check("an allowlist entry the policy does not allow: claim egress.allowlist", rc == 1
      and claims(out) == {"egress.allowlist"}, out)
rc, last, out = verify(policy("policy/allowlist-equal.json", KEY_A, allowlist={"equal": ALLOWED + other}), REPORT, NONCE)
check("an allowlist that is not the policy's exactly: claim egress.allowlist", rc == 1
      and claims(out) == {"egress.allowlist"}, out)
pcr0 = tpm["quote"]["pcrs"]["0"]
pcr15 = tpm["quote"]["pcrs"]["15"]
rc, last, out = verify(policy("policy/pcrs.json", KEY_A, pcrs={"0": [pcr0], "15": ["ab" * 32]}), REPORT, NONCE)
check("a PCR value the policy does not allow: claim pcrs.15 (and PCR 0 holds)", rc == 1 and claims(out) == {"pcrs.15"}, out)
rc, last, out = verify(policy("policy/pcrs-ok.json", KEY_A, pcrs={"0": [pcr0], "15": [pcr15]}), REPORT, NONCE)
check("the PCR values the policy pins: VERIFIED", rc == 0 and last == "VERIFIED", out)
rc, last, out = verify(policy("policy/other-key.json", base64.b64encode(b"\x11" * 32).decode()), REPORT, NONCE)
check("a report not signed by the policy's signer: claim signature", rc == 1 and "signature" in claims(out), out)
forged = dict(env)
payload = json.loads(base64.b64decode(env["payload"]))
payload["predicate"]["key"]["provenance"] = "production"
forged["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
rc, last, out = verify(GOOD, write("a/forged.json", json.dumps(forged)), NONCE)
check("a forged payload under the node's signature: claim signature", rc == 1 and claims(out) == {"signature"}, out)
rc, _, out = verify(write("policy/unknown.json", json.dumps({"signers": [KEY_A], "secureboot": "required"}), 0o600),
                    REPORT, NONCE)
check("a policy with an unknown field: exit 2, the field named", rc == 2 and "/secureboot" in out, out)
os.chmod(GOOD, 0o666)
rc, _, out = verify(GOOD, REPORT, NONCE)
check("a policy others may write: exit 2", rc == 2, out)
os.chmod(GOOD, 0o600)

# --- credential activation: the AK is in the TPM that holds the EK -----------------------------------
AK_A = tpm["ak"]["name"]
if shutil.which("tpm2_makecredential"):
    def credential(name, ak_name, secret=b"an auditor's secret"):
        """tpm2_makecredential in software (no TPM), for `ak_name` under the report's EK; the file, base64."""
        ek = os.path.join(WORK, f"cred/{name}.ek.pub")
        os.makedirs(os.path.dirname(ek), exist_ok=True)
        with open(ek, "wb") as f:
            f.write(base64.b64decode(tpm["ek"]["public"]))
        write(f"cred/{name}.secret", secret.decode())
        out = os.path.join(WORK, f"cred/{name}.out")
        r = subprocess.run(["tpm2_makecredential", "--tcti=none", "--encryption-key=" + ek,
                            "--secret=" + os.path.join(WORK, f"cred/{name}.secret"), "--name=" + ak_name,
                            "--credential-blob=" + out], capture_output=True, text=True, timeout=60)
        with open(out, "rb") as f:
            return r.returncode, base64.b64encode(f.read()).decode()

    made, blob = credential("good", AK_A)
    s, body = request(node.port, "POST", "/v1/attestation/credential", json.dumps({"credential": blob}),
                      "application/json")
    check("credential activation: a credential made off the node (tpm2_makecredential, no TPM) for the report's "
          "AK under its EK gives its secret back", made == 0 and s == 200
          and base64.b64decode(body.get("secret", "")) == b"an auditor's secret", f"HTTP {s} {body}")
    made, blob = credential("other-ak", "000b" + "ab" * 32)
    s, body = request(node.port, "POST", "/v1/attestation/credential", json.dumps({"credential": blob}),
                      "application/json")
    check("... and one made for another AK name is refused: 409", made == 0 and s == 409, f"HTTP {s} {body}")
    s, body = request(node.port, "POST", "/v1/attestation/credential", json.dumps({"credential": "AAAA"}),
                      "application/json")
    check("... a malformed credential: 400", s == 400, f"HTTP {s} {body}")
else:
    print("note: tpm2_makecredential is not installed (tpm2-tools); credential activation is not checked here")

# --- another TPM ---------------------------------------------------------------------------------------
PINNED = policy("policy/pinned.json", KEY_A, tpm_ak_names=[AK_A])
rc, last, out = verify(PINNED, REPORT, NONCE)
check("the AK the policy enrolled: VERIFIED", rc == 0 and last == "VERIFIED", out)
TPM_B = start_swtpm("tpm-b")
node_b = start_node(config("b", TPM_B, dns_server="198.51.100.53"))
s, env_b, REPORT_B = report_of(node_b.port, NONCE, "b/report.json")
rc, last, out = verify(policy("policy/pinned-b.json", node_public_key("b"), tpm_ak_names=[AK_A]), REPORT_B, NONCE)
check("a quote from another TPM: claim tpm.quote (ak_not_expected)", s == 200 and rc == 1
      and claims(out) == {"tpm.quote"} and "ak_not_expected" in out, out)
# Node b asks another DNS server: measured into its PCR, reported, pinned.
rc, last, out = verify(policy("policy/dns-b-other.json", node_public_key("b"), egress={"dns_server": "192.0.2.53"}),
                       REPORT_B, NONCE)
check("a node configured with another DNS server: claim egress.dns_server", rc == 1
      and claims(out) == {"egress.dns_server"} and "198.51.100.53:53" in out, out)
rc, last, out = verify(policy("policy/dns-b.json", node_public_key("b"), egress={"dns_server": "198.51.100.53"}),
                       REPORT_B, NONCE)
check("... its own, bound to the quote by the node-trust event: VERIFIED", rc == 0 and last == "VERIFIED", out)
node_b.stop()

# --- a restart in the same boot -------------------------------------------------------------------------
node.stop()
node = start_node(CFG_A)
s, env, REPORT2 = report_of(node.port, "bb", "a/report2.json")
events = predicate(env)["tpm"]["node"]["events"] if s == 200 else []
rc, last, out = verify(GOOD, REPORT2, "bb")
check("after a restart the node's PCR log holds both starts, and the report verifies",
      [e["kind"] for e in events].count("node-start") == 2 and rc == 0 and last == "VERIFIED",
      out + json.dumps(events)[:300])
node.stop()

# --- no TPM --------------------------------------------------------------------------------------------
node = start_node(config("none", "none"))
s, env, REPORT_N = report_of(node.port, NONCE, "none/report.json")
tpm_n = predicate(env).get("tpm", {}) if s == 200 else {}
check("a node without a TPM: a signed report that says so, and why, with no PCR claim",
      tpm_n == {"present": False, "reason": "attestation.tpm is \"none\" in volent.yaml"}, json.dumps(tpm_n))
KEY_N = node_public_key("none")
rc, last, out = verify(policy("policy/none-required.json", KEY_N), REPORT_N, NONCE)
check("... which a policy requiring a TPM fails: claim tpm", rc == 1 and claims(out) == {"tpm"}, out)
rc, last, out = verify(policy("policy/none-optional.json", KEY_N, tpm="optional"), REPORT_N, NONCE)
check("... and one that does not require a TPM verifies", rc == 0 and last == "VERIFIED", out)
node.stop()

check.finish("attestation: ")
