// Numbers: formatting, radix conversion, parsing, integer limits, rounding.
const values = [0, -0, 1, -1.5, 0.1 + 0.2, 1 / 3, 123456789.123, 1e21, 1e-7, 5e-324, 2 ** 53, NaN, Infinity];
for (const v of values) {
  print(String(v), v.toFixed(2), v.toPrecision(4), v.toExponential(3), Object.is(v, -0) ? "neg-zero" : "");
}
print((255).toString(2), (255).toString(16), (-255).toString(36), (0.5).toString(2), (3.75).toString(8));
print(parseInt("0x1F"), parseInt("1e3"), parseInt("  42px"), parseInt("z", 36), parseFloat("3.14abc"), Number("0b101"), Number(""), Number(" 12 "), Number("1_000"));
print(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.EPSILON, Number.MAX_VALUE, Number.MIN_VALUE);
print(Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), 2 ** 53 + 1, 0.1 * 3, 9007199254740993, 1e16 + 1);
print(Math.round(2.5), Math.round(-2.5), Math.round(0.49999999999999994), Math.trunc(-4.7), Math.sign(-3), Math.max(), Math.min(1, "0"));
print(Math.hypot(3, 4), Math.sqrt(2), Math.cbrt(27), Math.abs(-7.25), Math.floor(-0.5), Math.ceil(-0.5), Math.fround(5.5), Math.clz32(1), Math.imul(0xffffffff, 5));
print(7 % -3, -7 % 3, 2 ** -1, (-8) ** (1 / 3), 0 / 0, 1 / -0, 10 / 3, 1e300 * 1e10, 017 === 15 ? "octal" : "no");
print((1234.5678).toFixed(1), (0.000001234).toPrecision(2), (1e21).toFixed(2), (123.456).toExponential(), (-1.005).toFixed(2));
let sum = 0;
for (let k = 1; k <= 100000; k++) sum += 1 / (k * k);
print(sum, Math.PI ** 2 / 6, (sum - Math.PI ** 2 / 6).toExponential(4));
print([10, 9, 1, 100, 25].sort().join(), [10, 9, 1, 100, 25].sort((a, b) => a - b).join(), 0.1 + 0.7, 1.1 * 3);
