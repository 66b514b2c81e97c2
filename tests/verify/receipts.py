#!/usr/bin/env python3
"""Receipts read and changed after the fact, for tests/verify/verify_cli.sh.

    receipts.py greedy SRC DST     an unsigned receipt asking for endless fuel and time
    receipts.py tampered SRC DST   the stdout digest replaced by that of "4200\\n"
                                   (a forger without the key; the script re-signs it)
    receipts.py status SRC         the guest's exit status the statement records
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


if __name__ == "__main__":
    commands = {"greedy": greedy, "tampered": tampered, "status": status}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit("usage: receipts.py greedy|tampered SRC DST | receipts.py status SRC")
    commands[sys.argv[1]](*sys.argv[2:])
