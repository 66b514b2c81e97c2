# Smoke test for python.wasm: the modules the product promises (docs/runtimes.md)
# work, and what WASI cannot do fails with an ordinary Python exception.
# Prints one line per check and "N passed, N failed"; exits 1 on any failure.
import sys

results = []


def check(name, fn):
    try:
        fn()
        results.append((name, None))
    except Exception as exc:  # report every failure, keep going
        results.append((name, f"{type(exc).__name__}: {exc}"))


def t_json():
    import json
    doc = json.loads('{"a": [1, 2.5, null, true], "b": "\\u00e9"}')
    assert doc["a"][1] == 2.5 and doc["b"] == "\u00e9"
    assert json.dumps(doc, sort_keys=True) == '{"a": [1, 2.5, null, true], "b": "\\u00e9"}'


def t_decimal():
    import decimal
    decimal.getcontext().prec = 50
    assert str(decimal.Decimal(1) / decimal.Decimal(7))[:12] == "0.1428571428"
    assert decimal.Decimal("0.1") + decimal.Decimal("0.2") == decimal.Decimal("0.3")
    import _decimal  # the C implementation, not the pure-Python fallback
    assert decimal.Decimal is _decimal.Decimal


def t_csv():
    import csv, io
    buf = io.StringIO()
    csv.writer(buf).writerows([["id", "note"], [1, 'say "hi", ok']])
    rows = list(csv.reader(io.StringIO(buf.getvalue())))
    assert rows == [["id", "note"], ["1", 'say "hi", ok']], rows


def t_re():
    import re
    m = re.fullmatch(r"(?P<user>\w+)@(?P<host>[\w.]+)", "ada@example.org")
    assert m and m["host"] == "example.org"
    assert re.sub(r"\s+", " ", "a \t b\n c") == "a b c"


def t_math():
    import math
    assert math.isclose(math.sqrt(2) ** 2, 2.0)
    assert math.factorial(20) == 2432902008176640000
    assert math.gcd(84, 36) == 12 and math.isnan(math.nan)


def t_datetime():
    import datetime
    d = datetime.datetime(2024, 2, 28, 23, 30, tzinfo=datetime.timezone.utc)
    assert (d + datetime.timedelta(hours=1)).isoformat() == "2024-02-29T00:30:00+00:00"
    assert datetime.date(2024, 3, 1).strftime("%A %d %B") == "Friday 01 March"


def t_hashlib():
    import hashlib
    assert hashlib.sha256(b"abc").hexdigest().startswith("ba7816bf8f01cfea")
    assert hashlib.md5(b"").hexdigest() == "d41d8cd98f00b204e9800998ecf8427e"
    assert len(hashlib.blake2b(b"x", digest_size=8).digest()) == 8
    assert len(hashlib.sha3_256(b"").digest()) == 32


def t_fractions():
    from fractions import Fraction
    assert Fraction(1, 3) + Fraction(1, 6) == Fraction(1, 2)
    assert Fraction("3.1415").limit_denominator(100) == Fraction(311, 99)


def t_statistics():
    import statistics
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert statistics.mean(data) == 5 and statistics.pstdev(data) == 2.0
    assert statistics.median([1, 3, 2]) == 2


def t_zlib():
    import zlib
    raw = b"ampoule " * 100
    assert zlib.decompress(zlib.compress(raw)) == raw


def t_socket_fails_cleanly():
    import socket
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    except OSError:
        return
    raise AssertionError("a network connection succeeded")


def t_thread_fails_cleanly():
    import threading
    try:
        threading.Thread(target=lambda: None).start()
    except RuntimeError:
        return
    raise AssertionError("a thread started")


def t_subprocess_fails_cleanly():
    try:
        import subprocess
        subprocess.run(["true"])
    except (ImportError, OSError, RuntimeError):
        return
    raise AssertionError("a subprocess ran")


for name, fn in list(globals().items()):
    if name.startswith("t_"):
        check(name[2:], fn)

failed = [r for r in results if r[1]]
for name, err in results:
    print(f"{'ok  ' if err is None else 'FAIL'} {name}{'' if err is None else ': ' + err}")
print(f"python: {len(results) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
