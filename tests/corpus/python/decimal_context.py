# decimal: contexts, signals and transcendental functions.
import decimal
from decimal import Decimal, localcontext, InvalidOperation, DivisionByZero, Inexact

with localcontext() as ctx:
    ctx.prec = 30
    print(Decimal(1).exp())
    print(Decimal(10).ln())
    print(Decimal(2).log10())
    print(Decimal(3) ** Decimal("0.5"))
with localcontext() as ctx:
    ctx.traps[DivisionByZero] = False
    print(Decimal(1) / Decimal(0), ctx.flags[DivisionByZero])
try:
    Decimal(1) / Decimal(0)
except DivisionByZero as e:
    print("DivisionByZero", type(e).__mro__[1].__name__)
try:
    Decimal("abc")
except InvalidOperation:
    print("InvalidOperation for 'abc'")
with localcontext() as ctx:
    ctx.prec = 5
    ctx.traps[Inexact] = True
    try:
        Decimal(1) / Decimal(3)
    except Inexact:
        print("Inexact trapped")
    print(Decimal("1.00") / Decimal("4"))
print(Decimal("NaN").is_nan(), Decimal("-Infinity") < 0, Decimal("1e-1000000").is_subnormal())
print(Decimal("0.1").fma(3, Decimal("0.7")))
print(Decimal(12345).scaleb(-3), Decimal("3.14159").quantize(Decimal("1e-3")))
print(decimal.BasicContext.prec, decimal.ExtendedContext.rounding)
print(Decimal("10").compare_total(Decimal("10.0")), Decimal("-5").copy_abs(), Decimal(255).logb())
