// crypto.getRandomValues and crypto.randomUUID: the types, lengths and format
// only (the bytes come from the run's seeded source and differ from Node's).
console.log(typeof crypto, Object.prototype.toString.call(crypto), typeof crypto.getRandomValues, typeof crypto.randomUUID);
for (const T of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array]) {
  const a = new T(16);
  const r = crypto.getRandomValues(a);
  console.log(T.name, r === a, a.length);
}
const big = new Uint8Array(65536);
console.log("65536 bytes:", crypto.getRandomValues(big).length, big.some((b) => b !== 0));
const part = new Uint8Array(8);
crypto.getRandomValues(part.subarray(2, 4));
console.log("subarray fills only its bytes:", part[0] === 0 && part[1] === 0 && part[4] === 0 && part[7] === 0);
console.log("empty:", crypto.getRandomValues(new Uint32Array(0)).length);
const bad = [new Float32Array(4), new Float64Array(4), new DataView(new ArrayBuffer(4)), [1, 2, 3], new ArrayBuffer(4), new Uint8Array(65537), new Uint32Array(16385)];
for (const value of bad) {
  try {
    crypto.getRandomValues(value);
    console.log("accepted?!");
  } catch (e) {
    console.log(value.constructor.name, "->", e.name, e instanceof DOMException, e.code);
  }
}
try {
  crypto.getRandomValues();
} catch (e) {
  console.log("no argument ->", e.name);
}
const uuids = new Set();
const format = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let wellFormed = true;
for (let i = 0; i < 100; i++) {
  const id = crypto.randomUUID();
  wellFormed &&= typeof id === "string" && id.length === 36 && format.test(id);
  uuids.add(id);
}
console.log("100 UUIDs, version 4, variant 10:", wellFormed, "distinct:", uuids.size);
const words = crypto.getRandomValues(new Uint32Array(64));
console.log("not all equal:", new Set(words).size > 1);
