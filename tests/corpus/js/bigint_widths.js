// BigInt.asUintN and BigInt.asIntN at every width around the limb sizes, on
// positive and negative values of one to six 32-bit limbs (runtimes/quickjs/patches/0001).
// The expected output is what Node prints for this program.
const out = globalThis.print ?? console.log;
let s = 12345;
function rnd(n) { s = (s * 1103515245 + 12345) % 2147483648; return s % n; }
const widths = [1, 7, 8, 16, 31, 32, 33, 53, 63, 64, 65, 96, 127, 128, 129, 200];
const values = [0n, 1n, -1n, -5n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, -(2n ** 32n), 2n ** 63n, -(2n ** 63n),
                2n ** 64n - 1n, -(2n ** 64n), 2n ** 70n, -(2n ** 70n), 2n ** 128n + 5n, -(2n ** 128n) - 5n];
for (let i = 0; i < 24; i++) {
  let v = 0n;
  for (let j = rnd(6); j >= 0; j--) v = (v << 32n) | BigInt(rnd(2147483647)) * 2n + BigInt(rnd(2));
  values.push(rnd(2) ? v : -v);
}
for (const v of values) {
  out(`${v}: u ${widths.map((w) => BigInt.asUintN(w, v)).join(" ")}`);
  out(`${v}: i ${widths.map((w) => BigInt.asIntN(w, v)).join(" ")}`);
}
out(String(BigInt.asIntN(2 ** 53 - 1, -7n)), String(BigInt.asUintN(2 ** 53 - 1, 7n)), String(BigInt.asUintN(0, -7n)));
try { BigInt.asUintN(2 ** 53 - 1, -1n); } catch (e) { out(e.name); }
