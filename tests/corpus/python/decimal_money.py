# decimal: money arithmetic, quantize and rounding modes.
from decimal import Decimal, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_CEILING, getcontext

prices = [Decimal("19.99"), Decimal("5.01"), Decimal("0.10"), Decimal("100.00")]
quantities = [3, 7, 11, 1]
subtotal = sum(p * q for p, q in zip(prices, quantities))
print("subtotal", subtotal)
for rate in ["0.0825", "0.19", "0.07"]:
    tax = (subtotal * Decimal(rate)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    print("tax at", rate, "=", tax, "total", subtotal + tax)

for value in ["2.675", "2.665", "-2.675", "0.005", "1.115"]:
    d = Decimal(value)
    print(value, [str(d.quantize(Decimal("0.01"), rounding=r))
                  for r in (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_CEILING)])
print(Decimal(0.1))
print(Decimal("1") / Decimal("7"))
getcontext().prec = 50
print(Decimal("1") / Decimal("7"))
print(Decimal(2).sqrt())
print(Decimal("1.30") + Decimal("1.20"), Decimal("1.3") * Decimal("1.2"))
print(Decimal("123.4500").normalize(), Decimal("1E+3").to_integral_value(), Decimal("-0"))
print(sorted([Decimal("1.5"), Decimal("-2"), Decimal("1.50"), Decimal("0.3")]))
print(Decimal("7.325").as_tuple())
print("{:,.2f}".format(Decimal("1234567.891")))
