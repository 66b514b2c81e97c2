# Sorting: stability across passes, keys, reverse, mixed tuples, None handling.
records = [("alice", "eng", 30), ("bob", "ops", 25), ("carol", "eng", 25), ("dave", "ops", 30),
           ("erin", "eng", 35), ("frank", "hr", 25), ("grace", "hr", 30), ("heidi", "eng", 30)]
by_age = sorted(records, key=lambda r: r[2])
by_dept_then_age = sorted(by_age, key=lambda r: r[1])
for r in by_dept_then_age:
    print(r)
print([r[0] for r in sorted(records, key=lambda r: r[2], reverse=True)])
print([r[0] for r in sorted(records, key=lambda r: (r[1], -r[2], r[0]))])
words = "the quick brown fox jumps over the lazy dog THE End".split()
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len), sorted(words, key=len, reverse=True))
vals = [3, None, 1, None, 2]
print(sorted(vals, key=lambda v: (v is None, v or 0)))
items = [(i % 3, i) for i in range(12)]
items.sort(key=lambda t: t[0])
print(items)
print(sorted([0.1, -0.0, 0.0, -1, 1e-9, float("inf")]), sorted("Banana"), sorted([[2, 1], [1, 2], [1]]))
a = list(range(20, 0, -1))
a[5:15] = sorted(a[5:15])
print(a, min(records, key=lambda r: r[2]), max(records, key=lambda r: r[2]))
