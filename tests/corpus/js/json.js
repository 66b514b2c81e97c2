// JSON: stringify with indentation, replacers and toJSON; parse with a reviver.
const doc = {
  name: "Ampoule", version: [1, 2, 3], ratio: 0.1 + 0.2, nested: { z: null, a: true, m: [1.5, -0, 1e21, 1e-7] },
  text: "caf\u00e9 \u2603 \u{1F600} \"quoted\" \\ tab\t", skipped: undefined, fn() {},
};
print(JSON.stringify(doc));
print(JSON.stringify(doc, null, 2));
print(JSON.stringify(doc, ["name", "nested", "a"], "--"));
print(JSON.stringify(doc, (k, v) => (typeof v === "number" ? Math.round(v * 10) / 10 : v)));
const when = { at: new Date(Date.UTC(2024, 2, 15, 12, 30)), toString() { return "x"; } };
print(JSON.stringify(when), JSON.stringify({ toJSON() { return { custom: 1 }; } }));
const back = JSON.parse('{"a":[1,2,{"b":"2024-03-15T12:30:00.000Z"}],"c":"\\u00e9"}', (k, v) =>
  typeof v === "string" && /^\d{4}-/.test(v) ? new Date(v).getTime() : v);
print(JSON.stringify(back), back.c.length);
for (const bad of ['{"a":1,}', "[1, 2", "{'a':1}", "", "01"]) {
  try { JSON.parse(bad); print("parsed", bad); } catch (e) { print(e.name, JSON.stringify(bad)); }
}
print(JSON.stringify([NaN, Infinity, -Infinity, null, undefined, () => 1]), JSON.stringify("\u2028\u0000"));
print(JSON.stringify({ 2: "b", 1: "a", x: "c", [-1]: "d" }), JSON.stringify(new Map([[1, 2]])), JSON.stringify([new Set([1])]));
const cyc = {}; cyc.self = cyc;
try { JSON.stringify(cyc); } catch (e) { print(e.name); }
print(JSON.stringify(12345678901234567890), JSON.parse("1e400"), JSON.parse("-0") === 0, Object.is(JSON.parse("-0"), -0));
