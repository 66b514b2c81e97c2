#!/usr/bin/env python3
"""Receipts read and changed after the fact, for tests/verify/verify_cli.sh.

    receipts.py greedy SRC DST     an unsigned receipt asking for endless fuel and time
    receipts.py tampered SRC DST   the stdout digest replaced by that of "4200\\n"
                                   (a forger without the key; the script re-signs it)
    receipts.py status SRC         the guest's exit status the statement records
    receipts.py isolation SRC      the predicate's isolation ("absent" without one)
    receipts.py relabel SRC DST KEYFILE VALUE
                                   the predicate's isolation set to VALUE (JSON; "-"
                                   removes it, "v3" removes it and names predicate
                                   version 3, as older receipts were), re-signed
                                   with the secret key KEYFILE: what only the key
                                   holder can do (needs python3 cryptography)
    receipts.py schema SRC SCHEMA  check the statement (payload) against the JSON
                                   Schema SCHEMA (needs python3 jsonschema)
"""
import base64
import hashlib
import json
import sys


def statement(env):
    return json.loads(base64.b64decode(env["payload"]))


def greedy(src, dst):
    env = json.load(open(src))
    st = statement(env)
    st["predicate"]["limits"]["fuel"] = 2**64 - 1
    st["predicate"]["limits"]["timeout_seconds"] = 10**12
    st["predicate"]["result"]["fuel_used"] = 2**64 - 2
    env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
    json.dump(env, open(dst, "w"))


def tampered(src, dst):
    env = json.load(open(src))
    st = statement(env)
    fake = hashlib.sha256(b"4200\n").hexdigest()
    st["subject"][0]["digest"]["sha256"] = fake
    st["predicate"]["stdout"]["sha256"] = fake
    env["payload"] = base64.b64encode(json.dumps(st, sort_keys=True, separators=(",", ":")).encode()).decode()
    json.dump(env, open(dst, "w"))


def status(src):
    print(statement(json.load(open(src)))["predicate"]["result"]["status"])


def isolation(src):
    print(statement(json.load(open(src)))["predicate"].get("isolation", "absent"))


def relabel(src, dst, keyfile, value):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    env = json.load(open(src))
    st = statement(env)
    if value in ("-", "v3"):
        st["predicate"].pop("isolation", None)
        if value == "v3":
            st["predicateType"] = "https://ampoule.dev/attestations/run/v3"
    else:
        st["predicate"]["isolation"] = json.loads(value)
    seed = next(base64.b64decode(line.split()[1]) for line in open(keyfile) if line.startswith("ed25519-secret "))
    body = json.dumps(st, sort_keys=True, separators=(",", ":")).encode()
    kind = env["payloadType"].encode()
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)
    sig = Ed25519PrivateKey.from_private_bytes(seed).sign(pae)
    env["payload"] = base64.b64encode(body).decode()
    env["signatures"] = [{"keyid": env["signatures"][0]["keyid"], "sig": base64.b64encode(sig).decode()}]
    json.dump(env, open(dst, "w"))


def schema(src, schema_file):
    import jsonschema
    jsonschema.validate(statement(json.load(open(src))), json.load(open(schema_file)))


if __name__ == "__main__":
    commands = {"greedy": greedy, "tampered": tampered, "status": status, "isolation": isolation,
                "relabel": relabel, "schema": schema}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit("usage: receipts.py greedy|tampered SRC DST | receipts.py status|isolation SRC | "
                 "receipts.py relabel SRC DST KEYFILE VALUE | receipts.py schema SRC SCHEMA")
    commands[sys.argv[1]](*sys.argv[2:])
