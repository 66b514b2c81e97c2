# math: functions, special values, exact sums, float internals.
import math

for x in [0.5, 1.0, 2.0, 10.0, 1e-10, 123.456]:
    print(x, math.sqrt(x), math.log(x), math.log2(x), math.log10(x), math.exp(-x), math.sin(x), math.atan(x))
print(math.pi, math.e, math.tau, math.inf, -math.inf, math.nan)
print(math.hypot(3, 4, 12), math.dist((0, 0), (1, 1)), math.atan2(-1, -1), math.degrees(math.pi / 3))
print(math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.5), round(2.5), round(3.5), round(-0.5), round(1.005, 2))
print(math.fsum([0.1] * 10), sum([0.1] * 10), math.prod(range(1, 11)), math.comb(52, 5), math.perm(10, 3))
print(math.isclose(0.1 + 0.2, 0.3), math.isclose(1e-12, 0, abs_tol=1e-9), math.copysign(1, -0.0), math.fmod(-7, 3), -7 % 3)
print(math.frexp(1000.0), math.ldexp(0.9765625, 10), math.modf(-3.75), math.gcd(0, 0), math.factorial(20))
print(math.nextafter(1.0, 2.0), math.ulp(1.0), math.ulp(1e300), (0.1).hex(), float.fromhex("0x1.8p3"))
print(math.erf(1.0), math.erfc(1.0), math.gamma(5.5), math.lgamma(100.0), math.expm1(1e-10), math.log1p(1e-10))
# cbrt comes from the C library, whose last bit may differ (glibc 3.0000000000000004, musl 3.0).
print(round(math.cbrt(27.0), 12), math.exp2(10), math.isqrt(99), math.cosh(1), math.asinh(1), math.acos(0.5))
print(float("1e308") * 10, -float("1e308") * 10, math.isnan(float("inf") - float("inf")), 1e308 + 1e308 == math.inf)
for bad in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.exp(1000), lambda: math.factorial(-1)]:
    try:
        bad()
    except (ValueError, OverflowError) as e:
        print(type(e).__name__, e)
print(sum(1 / k ** 2 for k in range(1, 100001)), math.pi ** 2 / 6, 2 ** 0.5, 10 ** -3, 7 / 2, 7 // 2, -7 // 2)
