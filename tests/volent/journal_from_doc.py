#!/usr/bin/env python3
"""Journals written and edited from docs/journal.md alone, for
tests/volent/journal_cli.sh: volent accepting them shows that the document
is enough for an auditor to recompute every hash.

    journal_from_doc.py write DB STEPS       a journal of one run; prints `SEQ sha256:HASH` per entry
    journal_from_doc.py sql DB SQL           runs SQL on DB (to alter, remove, reorder entries)
    journal_from_doc.py example              the hash of the document's worked example
    journal_from_doc.py digest-json-is FILE ENTRIES DIGEST
                                             exit 1 unless FILE is that `digest --json` object
"""
import hashlib, json, sqlite3, struct, sys

SCHEMA = """CREATE TABLE entries (
  seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, agent TEXT NOT NULL, run_id TEXT NOT NULL,
  step INTEGER NOT NULL, effect_key TEXT NOT NULL, payload TEXT NOT NULL,
  time_ms INTEGER NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
  UNIQUE (effect_key, kind))"""

def field(s):
    b = s.encode()
    return struct.pack('>Q', len(b)) + b

def entry_hash(seq, prev, kind, agent, run, step, key, payload, time_ms):
    parts = ['volent-journal/v1', str(seq), prev, kind, agent, run, str(step), key, payload, str(time_ms)]
    return hashlib.sha256(b''.join(field(p) for p in parts)).hexdigest()

def write(path, steps):
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    db.execute('PRAGMA user_version = 1')
    prev, seq, t = '0' * 64, 0, 1764470000000
    def add(kind, agent, run, step, payload):
        nonlocal prev, seq, t
        seq += 1
        t += 17
        key = f'{agent}/{run}/{step}'
        text = json.dumps(payload, separators=(',', ':'))
        h = entry_hash(seq, prev, kind, agent, run, step, key, text, t)
        db.execute('INSERT INTO entries VALUES (?,?,?,?,?,?,?,?,?,?)',
                   (seq, kind, agent, run, step, key, text, t, prev, h))
        prev = h
        print(f'{seq} sha256:{h}')
    add('run-started', 'refund', 'run-1', 0, {'order': 'A-17'})
    for step in range(1, steps + 1):
        add('intent', 'refund', 'run-1', step, {'url': 'https://erp.internal/refund', 'n': step})
        if step == 2:
            add('approval-requested', 'refund', 'run-1', step, {'tool': 'refund'})
            add('approval-decided', 'refund', 'run-1', step, {'by': 'ops@example.org', 'approve': True})
        if step != steps:  # the last step stays pending
            add('completion', 'refund', 'run-1', step, {'status': 200, 'body': 'é ✓'})
    db.commit()

def run_sql(path, sql):
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()

def digest_json_is(path, entries, digest):
    """Exit 1 unless PATH holds the `digest --json` object of ENTRIES entries and DIGEST."""
    d = json.load(open(path))
    if d != {"entries": int(entries), "digest": digest}:
        sys.exit(f"digest --json printed {d}")

if sys.argv[1] == 'write':
    write(sys.argv[2], int(sys.argv[3]))
elif sys.argv[1] == 'sql':
    run_sql(sys.argv[2], sys.argv[3])
elif sys.argv[1] == 'digest-json-is':
    digest_json_is(*sys.argv[2:5])
elif sys.argv[1] == 'example':
    # The worked example of docs/journal.md.
    print(entry_hash(1, '0' * 64, 'intent', 'refund', 'run-1', 3, 'refund/run-1/3', '{"amount":42}', 1764470000000))
