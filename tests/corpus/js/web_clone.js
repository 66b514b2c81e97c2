// structuredClone (HTML standard): deep copies of primitives, plain objects,
// arrays (holes kept), Date, RegExp, Map, Set, ArrayBuffer and its views,
// wrapper objects and errors, with shared references and cycles preserved;
// functions, symbols and objects with hidden state throw DataCloneError.
const show = (v) => JSON.stringify(v);
for (const v of [undefined, null, true, 0, -0, NaN, Infinity, 12.5, "text", 2n ** 70n]) {
  const c = structuredClone(v);
  console.log(typeof c, Object.is(c, v), String(c));
}

const original = {
  name: "order",
  items: [{ sku: "A1", qty: 2 }, { sku: "B2", qty: 1 }],
  when: new Date(Date.UTC(2024, 2, 15, 12, 30)),
  pattern: /ab+c/giu,
  tags: new Set(["x", "y"]),
  prices: new Map([["A1", 9.5], ["B2", { amount: 20 }]]),
  nested: { deep: { deeper: [1, [2, [3]]] } },
  [Symbol("hidden")]: "symbol keys are skipped",
};
Object.defineProperty(original, "secret", { value: "not enumerable", enumerable: false });
const copy = structuredClone(original);
console.log(copy !== original, copy.items !== original.items, show(copy.items), show(copy.nested));
console.log(copy.when instanceof Date, copy.when !== original.when, copy.when.toISOString());
console.log(copy.pattern instanceof RegExp, copy.pattern.source, copy.pattern.flags, copy.pattern !== original.pattern);
console.log(copy.tags instanceof Set, [...copy.tags].join(","), copy.prices instanceof Map, show([...copy.prices]));
console.log(Object.getOwnPropertySymbols(copy).length, "secret" in copy, Object.keys(copy).join(","));
copy.items[0].qty = 99;
console.log(original.items[0].qty, copy.items[0].qty);

// Shared references stay shared; cycles survive.
const shared = { id: 1 };
const graph = { a: shared, b: shared, list: [shared] };
graph.self = graph;
graph.list.push(graph.list);
const g2 = structuredClone(graph);
console.log(g2.a === g2.b, g2.a === g2.list[0], g2.a !== shared, g2.self === g2, g2.list[1] === g2.list);
const m = new Map();
m.set("me", m);
const m2 = structuredClone(m);
console.log(m2.get("me") === m2, m2 !== m);

// Arrays keep their length and holes; extra properties come along.
const sparse = [1, , 3];
sparse.length = 5;
sparse.extra = "prop";
const s2 = structuredClone(sparse);
console.log(s2.length, 1 in s2, 4 in s2, s2.extra, show(Object.keys(s2)));

// Class instances become plain objects; getters are read; prototypes dropped.
class Point {
  #hidden = "private";
  constructor(x, y) { this.x = x; this.y = y; }
  get sum() { return this.x + this.y; }
}
const p = structuredClone(new Point(3, 4));
console.log(p instanceof Point, Object.getPrototypeOf(p) === Object.prototype, show(p), p.sum);
const withGetter = { get computed() { return "read at clone time"; } };
const wg = structuredClone(withGetter);
console.log(show(Object.getOwnPropertyDescriptor(wg, "computed")));

// Binary data: buffers are copied; views keep their type, offset and length,
// and views of one buffer still share one buffer.
const buffer = new ArrayBuffer(16);
const bytes = new Uint8Array(buffer);
bytes.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
const views = { whole: bytes, part: new Uint16Array(buffer, 4, 3), dv: new DataView(buffer, 8, 4), f: new Float64Array([1.5, -0]) };
const v2 = structuredClone(views);
console.log(v2.whole.constructor.name, v2.part.constructor.name, v2.part.byteOffset, v2.part.length, [...v2.part].join(","));
console.log(v2.dv.constructor.name, v2.dv.byteOffset, v2.dv.byteLength, v2.dv.getUint8(0), v2.whole.buffer === v2.part.buffer);
console.log(v2.whole.buffer !== buffer, Object.is(v2.f[1], -0), [...new BigInt64Array(structuredClone(new BigInt64Array([-5n, 7n])))].join(","));
v2.whole[0] = 200;
console.log(bytes[0], v2.whole[0]);
const ab = structuredClone(new ArrayBuffer(3));
console.log(ab instanceof ArrayBuffer, ab.byteLength);

// Transfer: the buffer moves to the clone and the original is detached.
const moving = new Uint8Array([7, 8, 9]).buffer;
const moved = structuredClone({ data: moving }, { transfer: [moving] });
console.log(moving.byteLength, moved.data.byteLength, [...new Uint8Array(moved.data)].join(","));

// Wrapper objects.
const wrappers = structuredClone([Object(true), Object(5), Object("str"), Object(10n)]);
console.log(wrappers.map((w) => `${typeof w}:${w.constructor.name}:${w.valueOf()}`).join(" "));

// Errors: the type (by name), message and cause come along, other properties do not.
const err = new RangeError("out of range", { cause: { code: 42 } });
err.extra = "dropped";
const e2 = structuredClone(err);
console.log(e2 instanceof RangeError, e2.name, e2.message, show(e2.cause), e2.extra, e2 !== err);
class CustomError extends TypeError {}
const ce = structuredClone(new CustomError("custom"));
console.log(ce.constructor.name, ce instanceof CustomError, ce.message);
const renamed = new Error("renamed");
renamed.name = "SyntaxError";
console.log(structuredClone(renamed).constructor.name);
const odd = new Error("odd name");
odd.name = "NotAStandardError";
console.log(structuredClone(odd).constructor.name, structuredClone(new Error()).message === "");

// What cannot be cloned.
const attempts = {
  function: () => 1,
  "named function": function namedFn() {},
  symbol: Symbol("s"),
  "object holding a function": { ok: 1, fn() {} },
  WeakMap: new WeakMap(),
  WeakSet: new WeakSet(),
  Promise: Promise.resolve(1),
  "Symbol wrapper": Object(Symbol("w")),
};
for (const [what, value] of Object.entries(attempts)) {
  try {
    structuredClone(value);
    console.log(what, "cloned?!");
  } catch (e) {
    console.log(what, "->", e.name, e instanceof DOMException, e.code);
  }
}
try {
  structuredClone();
} catch (e) {
  console.log("no argument ->", e.name);
}
