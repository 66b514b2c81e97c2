#!/usr/bin/env python3
"""The JSON work of the trust gate's shell tests (tests/gate/lib.sh,
gate_rules.sh, gate_crash.sh): writing policies and drafts, reading what
`ampoule gate submit|log --json` printed, comparing logs with the decisions
made.

    gate_json.py COMMAND ARGS...      (lib.sh: `gate_json COMMAND ARGS...`)

Each command is one function below (COMMANDS at the end), named as on the
command line with `_` for `-`. A command that answers a question prints the answer; a command
that checks prints each problem it found and exits 1 (0 when it found none).
"""
import base64
import glob
import hashlib
import json
import os
import re
import sys
import unicodedata


def rows_of(log):
    """The rows of a `gate log --json` output file (one JSON object a line)."""
    return [json.loads(line) for line in open(log) if line.strip()]


def is_pending(row):
    # The delivery column's name is not documented: any column saying "pending".
    return "pending" in [str(v).lower() for v in row.values()]


def report(problems, stream=sys.stdout):
    for p in problems:
        print(p, file=stream)
    sys.exit(1 if problems else 0)


# --- fixtures ---------------------------------------------------------------------------------
def policy(file, kernel_sha, *changes):
    """The fixture's policy with fields replaced (name=JSON) or removed (name=-)."""
    p = {
        "trusted_keys": ["agent.key.pub"],
        "kernel_sha256": kernel_sha,
        "max_data_age_seconds": 86400,
        "replay_fuel_ceiling": 20000000000,
        "decision_log": "gate.db",
        "outbox": "outbox",
    }
    for arg in changes:
        name, value = arg.split("=", 1)
        if value == "-":
            p.pop(name, None)
        else:
            p[name] = json.loads(value)
    json.dump(p, open(file, "w"), indent=2)


def draft(file, key, now, *changes):
    """An action draft for the fixture's refund; the names are listed at
    write_draft in tests/gate/lib.sh."""
    d = {
        "kind": "refund",
        "idempotency_key": key,
        "fields": {
            "amount": {"value": "12.50", "from": "/refund"},
            "recipient": {"value": "ana", "from": "/customer"},
        },
        "data_as_of": now,
        "evidence": {
            "receipt": "refund.receipt.json",
            "program": "refund.py",
            "inputs": {"orders.csv": "orders.csv"},
            "output": "refund.out",
        },
    }
    text_names = {"as_of": ("data_as_of", None), "kind": ("kind", None),
                  "receipt": ("receipt", "evidence"), "program": ("program", "evidence"),
                  "output": ("output", "evidence"), "stdin": ("stdin", "evidence")}
    for arg in changes:
        name, value = arg.split("=", 1)
        where = d
        if name in text_names:
            name, section = text_names[name]
            if section:
                where = d[section]
            where[name] = value
            continue
        if name == "inputs":
            d["evidence"]["inputs"] = json.loads(value)
            continue
        if name.startswith("evidence."):
            where, name = d["evidence"], name[len("evidence."):]
        if value == "-":
            where.pop(name, None)
        else:
            where[name] = json.loads(value)
    json.dump(d, open(file, "w"), indent=2)


def draft_receipt(file):
    """The path of the draft's evidence.receipt, from the draft's folder."""
    d = json.load(open(file))
    print(os.path.join(os.path.dirname(os.path.abspath(file)), d["evidence"]["receipt"]))


def draft_key(file):
    print(json.load(open(file))["idempotency_key"])


def key_forms(nfc_file, nfd_file):
    """Gives the draft in NFC_FILE the key refund:café precomposed, and
    writes it to NFD_FILE with a combining accent."""
    d = json.load(open(nfc_file))
    d["idempotency_key"] = "refund:caf\u00e9"
    json.dump(d, open(nfc_file, "w"))
    d["idempotency_key"] = "refund:cafe\u0301"
    json.dump(d, open(nfd_file, "w"))


# --- receipts -----------------------------------------------------------------------------------
def tamper(receipt, payload_changed, sig_changed):
    """Two copies of RECEIPT: a byte of the signed payload changed (the
    signature kept), and a bit of the signature changed."""
    env = json.load(open(receipt))
    body = base64.b64decode(env["payload"])
    changed = body.replace(b'"seed":0', b'"seed":1', 1)
    assert changed != body
    json.dump(dict(env, payload=base64.b64encode(changed).decode()), open(payload_changed, "w"))
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[10] ^= 1
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    json.dump(env, open(sig_changed, "w"))


def forge(src, dst, keyfile, code):
    """DST is SRC's statement changed by CODE (Python statements over `st`,
    the decoded statement, with set_stdout(bytes)), re-signed with KEYFILE:
    a trusted signer lying, which only replay can catch. Needs the
    cryptography package (gate_rules.sh checks first)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    env = json.load(open(src))
    st = json.loads(base64.b64decode(env["payload"]))

    def set_stdout(data):
        digest = hashlib.sha256(data).hexdigest()
        st["predicate"]["stdout"].update(sha256=digest, bytes=len(data), total_bytes=len(data))
        for s in st["subject"]:
            if s["name"] == "stdout":
                s["digest"]["sha256"] = digest
    exec(code, {"st": st, "set_stdout": set_stdout})
    seed = next(base64.b64decode(line.split()[1]) for line in open(keyfile) if line.startswith("ed25519-secret "))
    body = json.dumps(st, sort_keys=True, separators=(",", ":")).encode()
    kind = env["payloadType"].encode()
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)
    sig = Ed25519PrivateKey.from_private_bytes(seed).sign(pae)
    env["payload"] = base64.b64encode(body).decode()
    env["signatures"] = [{"keyid": env["signatures"][0]["keyid"], "sig": base64.b64encode(sig).decode()}]
    json.dump(env, open(dst, "w"))


def sha256_of(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# --- what submit printed ------------------------------------------------------------------------
def reasons(text):
    """The reasons of a `gate submit --json` stdout, one a line."""
    print("\n".join(json.loads(text)["reasons"]))


def decision_of(file):
    """The decision a `--json` stdout in FILE names, lower case."""
    print(json.load(open(file))["decision"].lower())


def record(expected, decision, draft_file, receipt, reasons_text):
    """Appends a decision to the expected log, as `gate log --json` should list it."""
    try:
        digest = sha256_of(receipt)
    except OSError:
        digest = None
    # The gate records keys in NFC.
    key = unicodedata.normalize("NFC", json.load(open(draft_file))["idempotency_key"])
    with open(expected, "a") as f:
        f.write(json.dumps({"decision": decision, "key": key, "receipt_sha256": digest,
                            "reasons": [r for r in reasons_text.split("\n") if r]}) + "\n")


def send_json_ok(text, receipt):
    """`submit --json` of the send refund:json: one object with the documented keys."""
    try:
        o = json.loads(text)
    except ValueError:
        report(["stdout is not one JSON object"], sys.stderr)
    problems = []
    for k in ("decision", "reasons", "id", "idempotency_key", "receipt_sha256", "outbox_file"):
        if k not in o:
            problems.append(f"no {k}")
    if o.get("decision") not in ("send", "SEND"):
        problems.append(f"decision {o.get('decision')!r}")
    if not isinstance(o.get("reasons"), list):
        problems.append("reasons is not a list")
    if o.get("idempotency_key") != "refund:json":
        problems.append(f"idempotency_key {o.get('idempotency_key')!r}")
    if o.get("receipt_sha256") != sha256_of(receipt):
        problems.append("receipt_sha256 is not the receipt file's sha256")
    f = o.get("outbox_file") or ""
    key_digest = hashlib.sha256(b"refund:json").hexdigest()[:16]
    if not os.path.isfile(f) or not re.fullmatch(rf"send-[0-9a-f]{{16}}-{o.get('id')}-{key_digest}\.json",
                                                  os.path.basename(f)):
        problems.append(f"outbox_file {f!r} is not an existing send-<log>-<id>-<key>.json")
    elif json.load(open(f)).get("decision_id") != o.get("id"):
        problems.append("the message's decision_id is not the id")
    report(problems, sys.stderr)


def hold_json_ok(text, receipt):
    """`submit --json` of the hold refund:hold-json: decision, reasons, id,
    key, receipt digest, no outbox_file."""
    try:
        o = json.loads(text)
    except ValueError:
        report(["stdout is not one JSON object"], sys.stderr)
    ok = (o.get("decision") in ("hold", "HOLD") and isinstance(o.get("id"), int)
          and o.get("idempotency_key") == "refund:hold-json"
          and o.get("receipt_sha256") == sha256_of(receipt)
          and any("amount" in r for r in o.get("reasons", [])) and "outbox_file" not in o)
    sys.exit(0 if ok else 1)


# --- the outbox ---------------------------------------------------------------------------------
def message_name(log_id, decision_id, key):
    """The file name docs/gate.md gives a message."""
    print(f"send-{log_id[:16]}-{decision_id}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json")


def outbox_messages(folder, key):
    """How many send-*.json messages in FOLDER carry KEY."""
    n = 0
    for path in glob.glob(os.path.join(folder, "send-*.json")):
        try:
            if json.load(open(path)).get("idempotency_key") == key:
                n += 1
        except (ValueError, OSError):
            pass
    print(n)


def outbox_owner(folder):
    """The decision log identity FOLDER's marker names ("" if none)."""
    try:
        print(json.load(open(os.path.join(folder, ".ampoule-outbox")))["decision_log"])
    except (OSError, ValueError, KeyError):
        print("")


def message_ok(path, draft_file, receipt):
    """PATH is the outbox message of the draft's send: named by the log its
    outbox's marker names, its decision and its key, holding the draft's
    kind, key and fields and the receipt's digest."""
    m = json.load(open(path))
    d = json.load(open(draft_file))
    problems = []
    want_keys = {"decision_log", "decision_id", "kind", "idempotency_key", "fields", "receipt_sha256", "decided_at"}
    if set(m) != want_keys:
        problems.append(f"keys {sorted(m)} != {sorted(want_keys)}")
    try:
        owner = json.load(open(os.path.join(os.path.dirname(path), ".ampoule-outbox")))["decision_log"]
    except (OSError, ValueError, KeyError):
        owner = None
        problems.append("the outbox has no marker naming its decision log")
    if m.get("decision_log") != owner:
        problems.append(f"decision_log {m.get('decision_log')!r} is not the outbox's log {owner!r}")
    if not isinstance(m.get("decision_id"), int):
        problems.append(f"decision_id {m.get('decision_id')!r} is not a number")
    else:
        key_digest = hashlib.sha256(d["idempotency_key"].encode()).hexdigest()[:16]
        want_name = f"send-{str(owner)[:16]}-{m['decision_id']}-{key_digest}.json"
        if os.path.basename(path) != want_name:
            problems.append(f"file name {os.path.basename(path)} is not {want_name}")
    if m.get("kind") != d["kind"]:
        problems.append(f"kind {m.get('kind')!r}")
    if m.get("idempotency_key") != d["idempotency_key"]:
        problems.append(f"idempotency_key {m.get('idempotency_key')!r}")
    # Each field as checked: its value and the pointer it came from.
    want_fields = {k: {"value": v["value"], "from": v["from"]} for k, v in d["fields"].items()}
    if m.get("fields") != want_fields:
        problems.append(f"fields {m.get('fields')!r} != {want_fields!r}")
    digest = sha256_of(receipt)
    if m.get("receipt_sha256") != digest:
        problems.append(f"receipt_sha256 {m.get('receipt_sha256')!r} != sha256 of the receipt file {digest}")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", str(m.get("decided_at"))):
        problems.append(f"decided_at {m.get('decided_at')!r} is not RFC 3339 UTC")
    report(problems)


def delivered_in_files(log):
    """Each send the log calls delivered whose outbox_file does not hold its
    message (nothing when all do)."""
    for r in rows_of(log):
        if r["decision"].lower() != "send" or r.get("delivery") != "delivered":
            continue
        f = r.get("outbox_file") or ""
        try:
            m = json.load(open(f))
            owner = json.load(open(os.path.join(os.path.dirname(f), ".ampoule-outbox")))["decision_log"]
        except (OSError, ValueError, KeyError):
            print(f"send #{r['id']} is called delivered to {f!r}, which holds no message in a marked outbox")
            continue
        if (m.get("decision_id"), m.get("idempotency_key"), m.get("decision_log")) != (r["id"], r["idempotency_key"], owner):
            print(f"send #{r['id']} is called delivered to {f}, which is decision #{m.get('decision_id')} "
                  f"({m.get('idempotency_key')}) of log {m.get('decision_log')}")


# --- the decision log ---------------------------------------------------------------------------
def log_count(log, expression):
    """Rows matching a Python expression over row `r` (e.g. 'r["decision"] == "send"')."""
    print(sum(1 for r in rows_of(log) if eval(expression, {"r": r})))


def decision_state(log, decision_id):
    """`DECISION DELIVERY` of one row ("None None" if there is no such row)."""
    row = {r["id"]: r for r in rows_of(log)}.get(int(decision_id), {})
    print(row.get("decision"), row.get("delivery"))


def fields_recorded(log):
    """The last row's fields are the cross-record pair of gate_rules.sh, with their pointers."""
    f = rows_of(log)[-1]["fields"]
    sys.exit(0 if f["amount"] == {"value": "99.00", "from": "/orders/1/amount"}
             and f["recipient"] == {"value": "ana", "from": "/orders/0/customer"} else 1)


def reason_count(expected):
    """How many reasons the decisions in the expected log printed."""
    print(sum(len(r["reasons"]) for r in rows_of(expected)))


def log_matches(log, expected):
    """The log holds every decision made, in order, with its reasons and
    receipt digest, and every send delivered."""
    rows, want = rows_of(log), rows_of(expected)
    bad = 0
    if len(rows) != len(want):
        print(f"  {len(rows)} rows, {len(want)} decisions made")
        bad += 1
    ids = [r.get("id") for r in rows]
    if ids != sorted(ids) or len(set(ids)) != len(ids):
        print(f"  ids not increasing: {ids}")
        bad += 1
    for i, (r, w) in enumerate(zip(rows, want)):
        diffs = []
        if str(r.get("decision", "")).lower() != w["decision"]:
            diffs.append(f"decision {r.get('decision')!r} != {w['decision']!r}")
        if r.get("idempotency_key") != w["key"]:
            diffs.append(f"key {r.get('idempotency_key')!r} != {w['key']!r}")
        if w["receipt_sha256"] and r.get("receipt_sha256") != w["receipt_sha256"]:
            diffs.append(f"receipt_sha256 {r.get('receipt_sha256')!r} != {w['receipt_sha256']!r}")
        if r.get("reasons") != w["reasons"]:
            diffs.append(f"reasons {r.get('reasons')!r} != printed {w['reasons']!r}")
        if diffs:
            bad += 1
            print(f"  row {i} (id {r.get('id')}): " + "; ".join(diffs))
    sends = [r for r in rows if str(r.get("decision", "")).lower() == "send"]
    pending = [r for r in sends if is_pending(r)]
    if pending:
        print(f"  sends not marked delivered: {[r.get('id') for r in pending]}")
        bad += 1
    sys.exit(1 if bad else 0)


def crash_log_problems(log, key, rows, *printed):
    """After a gate killed and restarted: one send for KEY, delivered; ROWS
    rows if given; each decision a --json stdout in PRINTED names is in the
    log as printed."""
    table = rows_of(log)
    by_id = {r["id"]: r for r in table}
    sends = [r for r in table if r["decision"].lower() == "send" and r["idempotency_key"] == key]
    if len(sends) != 1:
        print(f"{len(sends)} sends for {key} in the log, wanted 1")
    for r in sends:
        if is_pending(r):
            print(f"send #{r['id']} is still pending after a restart")
    if rows and len(table) != int(rows):
        print(f"{len(table)} rows in the log, wanted {rows}")
    for path in printed:
        try:
            d = json.loads(open(path).read())
        except ValueError:
            continue  # died before it printed
        r = by_id.get(d.get("id"))
        if r is None:
            print(f"decision #{d.get('id')} ({d.get('decision')}) was printed but is not in the log")
        elif r["decision"].lower() != str(d.get("decision")).lower():
            print(f"decision #{d.get('id')} printed {d.get('decision')} but the log says {r['decision']}")


COMMANDS = {f.__name__.replace("_", "-"): f for f in (
    policy, draft, draft_receipt, draft_key, key_forms, tamper, forge, reasons, decision_of, record,
    send_json_ok, hold_json_ok, message_name, outbox_messages, outbox_owner, message_ok, delivered_in_files,
    log_count, decision_state, fields_recorded, reason_count, log_matches, crash_log_problems)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(f"usage: gate_json.py COMMAND ARGS...; commands: {' '.join(sorted(COMMANDS))}")
    COMMANDS[sys.argv[1]](*sys.argv[2:])
