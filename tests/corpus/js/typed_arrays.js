// Typed arrays, ArrayBuffer and DataView: views, endianness, overflow, float bits.
const buf = new ArrayBuffer(16);
const u8 = new Uint8Array(buf), dv = new DataView(buf);
dv.setUint32(0, 0xdeadbeef, false);
dv.setUint32(4, 0xdeadbeef, true);
dv.setFloat64(8, Math.PI, true);
const hex = (a) => Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
print(hex(u8), dv.getUint16(0), dv.getInt16(0, true), dv.getFloat64(8, true));
const i8 = Int8Array.from([127, 128, 255, -129, 300]);
const c8 = Uint8ClampedArray.from([-5, 127.5, 128.5, 300]);
print(i8.join(), c8.join(), new Uint16Array([70000, -1]).join(), new Int32Array([2 ** 31, 2 ** 32 + 5]).join());
const f32 = new Float32Array([0.1, 1 / 3, 16777217]);
print(f32.join(), Array.from(new Uint32Array(f32.buffer), (x) => x.toString(16)).join());
const sub = u8.subarray(4, 8);
sub[0] = 0;
print(hex(u8.slice(0, 8)), sub.byteOffset, sub.length, u8.slice(4, 8).buffer === buf);
const big = new BigUint64Array([2n ** 64n - 1n, 5n]);
print(big.join(), new BigInt64Array(big.buffer).join());
const sorted = new Float64Array([3, -1, NaN, -0, 0, 2]).sort();
print(Array.from(sorted, (x) => (Object.is(x, -0) ? "-0" : String(x))).join());
const data = new Uint8Array(256).map((_, i) => (i * 7) & 255);
let crc = 0xffffffff;
for (const byte of data) { crc ^= byte; for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1)); }
print(((crc ^ 0xffffffff) >>> 0).toString(16), data.reduce((a, b) => a + b, 0), data.indexOf(7), data.includes(256));
try { new Uint8Array(-1); } catch (e) { print(e.name); }
print(Uint8Array.BYTES_PER_ELEMENT, Float64Array.name, ArrayBuffer.isView(dv), buf.slice(8).byteLength);
