# Big integers: factorials, powers, modular arithmetic, conversions.
import math

f = math.factorial(500)
s = str(f)
print(len(s), s[:40], s[-40:].rstrip("0") or "0", len(s) - len(s.rstrip("0")))
print(sum(map(int, str(2 ** 1000))), (2 ** 521 - 1).bit_length(), pow(3, 10 ** 18, 10 ** 9 + 7))
p = 2 ** 127 - 1
print(pow(2, p - 1, p) == 1, pow(12345, -1, 1000003), (12345 * pow(12345, -1, 1000003)) % 1000003)
a, b = 3 ** 200, 7 ** 150
q, r = divmod(a, b)
print(q, r == a - q * b, -a // b, -a % b)
print(hex(2 ** 100 + 255), oct(-(10 ** 20)), bin(2 ** 40 - 1).count("1"), int("z" * 20, 36))
n = 10 ** 50 + 151
print(n.to_bytes(24, "big").hex(), int.from_bytes(b"\xff" * 9, "little", signed=True))
print((-7) >> 1, (-(2 ** 70)) >> 65, (2 ** 70) ^ (2 ** 69), ~(2 ** 64), 5 ** 0.5 == math.sqrt(5))
print(math.isqrt(10 ** 60 + 12345), math.gcd(2 ** 64 - 1, 2 ** 96 - 1), math.lcm(2 ** 30, 3 ** 19, 10 ** 5))
print(math.comb(1000, 500) % (10 ** 12), float(2 ** 1023 * 1.5 if False else 2 ** 1023), round(10 ** 25 / 3))
try:
    float(2 ** 1024)
except OverflowError as e:
    print("OverflowError:", e)
