# String formatting: the format mini-language, str.format and %-formatting.
values = [0, 1, -1, 3.14159265, -2.5e-8, 1234567.891, 2 ** 40, float("inf"), float("nan"), -0.0]
for v in values:
    print(f"[{v!r:>14}] [{v:<12}] [{v:^+12.3g}] [{v:012.4f}] [{v:,.2f}] [{v:.3e}] [{v:%}]"
          if isinstance(v, float) else f"[{v:>14}] [{v:<12}] [{v:^+12}] [{v:012d}] [{v:,}] [{v:_x}] [{v:#b}]")
print("{0}-{1}-{0}".format("a", "b"), "{name:*^11}".format(name="mid"), "{:>{w}.{p}f}".format(3.14159, w=10, p=3))
print("%5d|%-5d|%05.1f|%x|%X|%o|%e|%s|%r|%%|%c" % (42, 42, 3.14159, 255, 255, 8, 12345.678, "s", "r", 65))
print("%(a)s and %(b)05.2f" % {"a": "dict", "b": 1.5}, "%.3s" % "abcdef", "%+.2e" % -0.000123)
for x in [0.1, 0.5, 1.5, 2.5, 1e16, 1e-5, 123456789.0, 1 / 3, 2 / 3, 100.0, 1e22, 5e-324]:
    print(repr(x), str(x), f"{x:g}", f"{x:.17g}", round(x, 2), format(x, ".0f"))
print(f"{'left':<10}|{'right':>10}|{'center':^10}|", f"{12:#06x}", f"{-12:=+8}", f"{3:03}", f"{1e6:_.0f}")
print("tab\tsep".expandtabs(4), "a\u00e9".encode("utf-8"), "x".center(9, "."), "42".zfill(6), "-42".zfill(6))
print(format(1234.5, "n"), format(0.000001234, ".2%"), format(True, "d"), format(10 ** 20, ".3e"))
print("|".join(f"{i:>3}" for i in range(10)), "{!a}".format("naïve ☃"))
