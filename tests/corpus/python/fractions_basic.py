# fractions: exact rational arithmetic.
from fractions import Fraction
import math

a, b = Fraction(3, 4), Fraction(-5, 6)
print(a + b, a - b, a * b, a / b, a ** 2, b ** -3)
print(Fraction("3.1415926535"), Fraction(0.1), Fraction(0.1).limit_denominator(1000))
print(Fraction(math.pi).limit_denominator(100), Fraction(math.pi).limit_denominator(100000))
h = sum(Fraction(1, n) for n in range(1, 31))
print("H30 =", h, float(h))
print(math.floor(Fraction(-7, 2)), math.ceil(Fraction(-7, 2)), round(Fraction(5, 2)), round(Fraction(7, 2)))
print(Fraction(22, 7).as_integer_ratio(), Fraction(10, -4), Fraction("-1/3") < Fraction(-1, 4))
print(sorted([Fraction(1, 3), Fraction(1, 4), 0.3, 1, Fraction(2, 7)]))
print(f"{float(Fraction(1, 7)):.12f}", Fraction(1, 7) == 1 / 7, Fraction(1, 2) == 0.5)
x = Fraction(1)
for _ in range(8):
    x = (x + 2 / x) / 2
print("sqrt(2) ~", x, float(x))
