# pprint: nested data at several widths, sorted and unsorted dicts, depth.
import pprint

data = {
    "name": "ampoule",
    "limits": {"fuel": 20_000_000_000, "memory_bytes": 536870912, "timeout_seconds": 60},
    "inputs": [{"name": f"file{i}.csv", "bytes": i * 1000, "tags": ["a", "b"][: i % 3]} for i in range(4)],
    "matrix": [[i * j for j in range(8)] for i in range(4)],
    "text": "a fairly long string that will not fit on one line at a narrow width " * 2,
    "tuple": (1, (2, (3, (4, (5,))))),
    "set": {3, 1, 2},
}
pprint.pprint(data)
pprint.pprint(data, width=40, sort_dicts=False)
pprint.pprint(data, depth=2, compact=True)
print(pprint.pformat(list(range(40)), width=50, compact=True))
print(pprint.pformat({"b": [1] * 3, "a": {}}, underscore_numbers=True), pprint.isrecursive([]), pprint.saferepr({"x": 10**10}))
loop = [1, 2]
loop.append(loop)
print(pprint.pformat(loop).split(" with id=")[0], pprint.isrecursive(loop))
