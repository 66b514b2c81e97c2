// Map, Set, WeakMap and property order: insertion order everywhere, integer keys first on objects.
const m = new Map([["b", 2], ["a", 1]]);
m.set(NaN, "nan").set(0, "zero").set(-0, "minus zero").set("a", 10);
print([...m.keys()].map(String).join(","), m.get(NaN), m.get(0), m.size, m.has("c"));
m.delete("b");
print(JSON.stringify([...m]));
const s = new Set("mississippi");
print([...s].join(""), s.size, s.has("s"));
const a = new Set([1, 2, 3, 4]), b = new Set([3, 4, 5]);
print([...a].filter((x) => b.has(x)).join(","), [...new Set([...a, ...b])].join(","), [...a].filter((x) => !b.has(x)).join(","));
const obj = { b: 1, 10: "ten", a: 2, 2: "two", [Symbol("s")]: 3, "-1": "neg", "01": "str" };
print(Object.keys(obj).join(","), JSON.stringify(obj), Object.getOwnPropertySymbols(obj).length);
const wm = new WeakMap();
const key = {};
wm.set(key, "meta");
print(wm.get(key), wm.has({}), typeof WeakRef);
const counts = new Map();
for (const w of "the cat and the hat and the bat".split(" ")) counts.set(w, (counts.get(w) || 0) + 1);
print(JSON.stringify([...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))));
const grouped = {};
for (const n of [1, 2, 3, 4, 5, 6, 7]) (grouped[n % 3] ||= []).push(n);
print(JSON.stringify(grouped), Object.fromEntries(m.entries()).a);
const arr = [5, 1, 4, 1, 5, 9, 2, 6];
print(arr.toString(), [...arr].sort().join(), [...arr].sort((x, y) => y - x).join(), arr.indexOf(5), arr.lastIndexOf(5),
  arr.includes(9), arr.findLast((x) => x < 5), arr.at(-1), arr.flatMap((x) => [x, x]).length);
print([[1, [2]], [3, [4, [5]]]].flat(Infinity).join(), Array.from(new Set([3, 3, 1])).join(), [, 1].length);
