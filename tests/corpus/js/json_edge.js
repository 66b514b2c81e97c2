// JSON edge cases beyond json.js: escapes and lone surrogates, indentation
// limits, replacer arrays and functions with their keys, toJSON with its key,
// revivers that delete, __proto__ and duplicate keys, numbers at the limits,
// and what cannot be serialised. (QuickJS accepts "1." and the escape \x41,
// which JSON forbids: docs/testing-runs.md; they are left out here.)
const show = (...xs) => console.log(...xs.map((x) => (typeof x === "string" ? x : String(x))));
show(JSON.stringify("\u0000\u001f\u007f\u2028\u2029\"\\/\b\f\n\r\t"));
show(JSON.stringify("\ud800 \udfff \ud83d\ude00"), JSON.stringify("\ud83d"), JSON.stringify({ "\ud800": 1 }));
show(JSON.stringify({ a: [1, { b: 2 }] }, null, 20), JSON.stringify([1], null, "abcdefghijklmno"));
show(JSON.stringify({ a: 1 }, null, -5), JSON.stringify({ a: 1 }, null, ""), JSON.stringify({ a: [] , b: {} }, null, 1));
show(JSON.stringify({ a: 1, b: 2, c: { a: 3, d: 4 } }, ["a", "c", "a", 1]), JSON.stringify({ 1: "one", 2: "two" }, [1]));
const keys = [];
JSON.stringify({ x: [10, { y: 20 }], z: null }, function (key, value) {
  keys.push(`${JSON.stringify(key)}:${Array.isArray(this) ? "array" : typeof this}`);
  return value;
});
show(keys.join(" "));
show(JSON.stringify({ d: { toJSON(key) { return `toJSON got key ${JSON.stringify(key)}`; } }, arr: [{ toJSON: (k) => `index ${k}` }] }));
show(JSON.stringify(new Date(Date.UTC(2024, 0, 2))), JSON.stringify(new Date(NaN)), JSON.stringify({ when: new Date(0) }));
show(JSON.stringify([new Number(3), new String("s"), new Boolean(false), Object(1n) instanceof BigInt]));
for (const bad of [1n, { big: 2n }]) {
  try {
    JSON.stringify(bad);
  } catch (e) {
    show("BigInt:", e.name);
  }
}
show(JSON.stringify(undefined), JSON.stringify(() => 1), JSON.stringify(Symbol("s")), JSON.stringify({ [Symbol("k")]: 1, u: undefined, f() {} }));
show(JSON.stringify([undefined, () => 1, Symbol("s")]), JSON.stringify(Object.create({ inherited: 1 })), JSON.stringify(Object.defineProperty({}, "hidden", { value: 1 })));
show(JSON.stringify([0.1, -0, 1e21, 1e-7, 123456789012345680000, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 53]));

const parsed = JSON.parse('{"__proto__": {"polluted": true}, "dup": 1, "dup": 2, "nested": {"deep": [1, 2, {"x": null}]}}');
show(Object.getPrototypeOf(parsed) === Object.prototype, Object.keys(parsed).join(","), parsed.dup, ({}).polluted, parsed.__proto__.polluted);
show(JSON.parse(" \t\n\r 42 \n"), JSON.parse('"\\u00e9\\ud83d\\ude00\\/"'), JSON.parse("-0.5e-2"), JSON.parse("1E2"), JSON.parse("true"), JSON.parse("null"));
show(JSON.parse("12345678901234567890"), JSON.parse("0.1000000000000000055511151231257827"), JSON.parse("1e-400"), JSON.parse("-1e400"));
const revived = JSON.parse('{"keep": 1, "drop": 2, "list": [1, 2, 3], "obj": {"inner": "x"}}', function (key, value) {
  if (key === "drop") return undefined;
  if (Array.isArray(value)) return value.map((v) => v * 2);
  if (key === "inner") return `${value} (holder has ${Object.keys(this).join(",")})`;
  return value;
});
show(JSON.stringify(revived));
const order = [];
JSON.parse('{"a": [1, {"b": 2}], "c": 3}', (k, v) => { order.push(k === "" ? "(root)" : k); return v; });
show(order.join(" "));
for (const bad of ["{\"a\":1,}", "[1,]", "{a:1}", "'x'", "01", ".5", "+1", "0x10", "NaN", "Infinity", "\"\t\"", "[", "{\"a\" 1}", "\"\\ud800\"x", "", " ", "nul", "[1 2]"]) {
  try {
    const v = JSON.parse(bad);
    show("accepted", JSON.stringify(bad), JSON.stringify(v));
  } catch (e) {
    show("rejected", JSON.stringify(bad), e.name);
  }
}
show(JSON.parse('"\\ud800"').length, JSON.stringify(JSON.parse('"\\ud800"')));
const deep = "[".repeat(500) + "]".repeat(500);
show("500 levels:", JSON.stringify(JSON.parse(deep)).length);
show(JSON[Symbol.toStringTag], typeof JSON.parse, JSON.stringify.length, JSON.parse.length);
