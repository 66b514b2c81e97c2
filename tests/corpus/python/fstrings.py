# f-strings: =, conversions, nested specs, expressions, multi-line, escapes.
import math
from datetime import date

name, width, value = "pi", 12, math.pi
print(f"{name=}", f"{value=:.3f}", f"{name!r:>{width}}", f"{value:{width}.{4}f}|")
items = {"apple": 3, "kiwi": 12, "fig": 0}
for k, v in sorted(items.items()):
    print(f"{k:.<10}{v:.>4} {'many' if v > 5 else 'few' if v else 'none'}")
print(f"{[x ** 2 for x in range(6)]}", f"{ {'a': 1}['a'] }", f"{'nested ' + f'{1 + 1}'}")
print(f"{date(2024, 3, 15):%d.%m.%Y}", f"{3 + 4j}", f"{1_000_000:,}", f"{0.25:.0%}", f"{255:08b}")
total = 0
lines = []
for i in range(1, 6):
    total += i
    lines.append(f"{i:>2} {total:>3} {total / i:6.2f} {'#' * i}")
print("\n".join(lines))
print(f"{{literal}} {'{'}", f"{'quote'!s:^11}", f"{'é'!a}", f"{'multi'}" f"{'part'}")
obj = type("Thing", (), {"__format__": lambda self, spec: f"<Thing {spec or 'plain'}>"})()
print(f"{obj}", f"{obj:fancy}", f"{len('abc') * 2 = }")
