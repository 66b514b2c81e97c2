// BigInt: factorials, powers, modular arithmetic, conversions, mixing errors.
let f = 1n;
for (let i = 1n; i <= 100n; i++) f *= i;
const fs = f.toString();
print(fs.length, fs.slice(0, 30), fs.match(/0*$/)[0].length);
print(String(2n ** 256n), (2n ** 127n - 1n).toString(16), (-(2n ** 70n)).toString(2).length);
function powmod(b, e, m) { let r = 1n; b %= m; while (e > 0n) { if (e & 1n) r = (r * b) % m; b = (b * b) % m; e >>= 1n; } return r; }
const p = 2n ** 89n - 1n;
print(powmod(3n, p - 1n, p), powmod(12345n, 10n ** 18n, 1000000007n));
function inverse(a, m) { let [r0, r1, s0, s1] = [a, m, 1n, 0n]; while (r1) { const q = r0 / r1; [r0, r1] = [r1, r0 - q * r1]; [s0, s1] = [s1, s0 - q * s1]; } return ((s0 % m) + m) % m; }
print(inverse(12345n, 1000003n), (12345n * inverse(12345n, 1000003n)) % 1000003n);
print(-7n / 2n, -7n % 2n, 7n / -2n, BigInt.asUintN(8, 257n), BigInt.asIntN(8, 255n), BigInt.asUintN(16, -1n));  // every width: bigint_widths.js
print(BigInt("0x1fffffffffffff") + 2n, BigInt(Number.MAX_SAFE_INTEGER) * 3n, Number(2n ** 64n), parseInt("123456789012345678901234567890"));
try { print(1n + 1); } catch (e) { print(e.name + ": " + e.message); }
try { BigInt(1.5); } catch (e) { print(e.name); }
print(typeof 1n, 10n > 9, 10n == 10, 10n === 10, [3n, 1n, 2n].sort().join(), (123n).toLocaleString === undefined);
let a = 0n, b = 1n;
for (let i = 0; i < 500; i++) [a, b] = [b, a + b];
print(a.toString().length, a % 1000000007n, (a ^ (a >> 3n)) & 0xffffn, ~5n, 5n << 100n >> 98n);
