# Deep recursion in python.wasm ends in Python's own RecursionError (or, for
# the parser, MemoryError), which a program can catch, never in a trap of the
# host. Each case recurses without bound; the limit is sys.getrecursionlimit(),
# 1000 as in native CPython. Prints one line per case and "N passed, N failed";
# exits 1 on any failure. A trap ends the run instead, which the runner reports.
import copy
import json
import pickle
import sys

results = []


def expect(name, fn, errors=(RecursionError,)):
    try:
        fn()
        results.append((name, "no error raised"))
    except errors:
        results.append((name, None))
    except Exception as exc:  # report the wrong kind, keep going
        results.append((name, f"{type(exc).__name__}: {exc}"))


def nested_list(depth):
    outer = cur = []
    for _ in range(depth):
        cur.append([])
        cur = cur[0]
    return outer


def plain(n):
    return plain(n + 1)


class Init:
    def __init__(self, n):
        Init(n + 1)


class Repr:
    def __repr__(self):
        return repr(Repr())


def gen(n):
    yield from gen(n + 1)


deep = nested_list(100000)
expect("python calls", lambda: plain(0))
expect("json.loads arrays", lambda: json.loads("[" * 100000 + "]" * 100000))
expect("json.loads objects", lambda: json.loads('{"a":' * 100000 + "1" + "}" * 100000))
expect("json.dumps", lambda: json.dumps(deep))
expect("repr of nested lists", lambda: repr(deep))
expect("pickle.dumps", lambda: pickle.dumps(deep))
expect("copy.deepcopy", lambda: copy.deepcopy(deep))
expect("__init__ via type call", lambda: Init(0))
expect("__repr__ via repr()", lambda: repr(Repr()))
expect("yield from", lambda: next(gen(0)))
expect("compiler", lambda: eval("+".join(["1"] * 100000)))
expect("parser", lambda: eval("-" * 100000 + "1"), (RecursionError, MemoryError))
try:
    plain(0)
except RecursionError:
    pass
results.append(("recursion limit 1000", None if sys.getrecursionlimit() == 1000
                else f"limit is {sys.getrecursionlimit()}"))

failed = [r for r in results if r[1]]
for name, err in results:
    print(f"{'ok  ' if err is None else 'FAIL'} {name}{'' if err is None else ': ' + err}")
print(f"python recursion: {len(results) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
