# string: Template, constants, capwords, Formatter; str methods.
import string

t = string.Template("Dear $name, your order ${order_id} ships on $day. Cost: $$${cost}")
print(t.substitute(name="Ada", order_id=1042, day="Monday", cost="12.50"))
print(t.safe_substitute(name="Bob"))
try:
    t.substitute(name="x")
except KeyError as e:
    print("KeyError", e)
print(string.ascii_letters, string.digits, string.hexdigits, string.octdigits)
print(repr(string.punctuation), repr(string.whitespace), len(string.printable))
print(string.capwords("hello   wORLD, it's me"), string.capwords("a-b c-d", "-"))
f = string.Formatter()
print(f.format("{0:>5}|{x:<4}|", 42, x="y"), list(f.parse("a{0}b{name!r:>3}c")))
s = "  Hello, World! Hello!  "
print(s.strip(), s.lstrip(), s.rstrip() + "|", s.count("Hello"), s.find("World"), s.rfind("Hello"), s.index("!"))
print(s.split(), s.split(",", 1), "a,b,,c".split(","), "line1\nline2\r\nline3".splitlines(keepends=True))
print("Hello".swapcase(), "hello world".title(), "ABC".isupper(), "123".isdecimal(), "x y".isidentifier())
print("-".join("abc"), "abc".partition("b"), "a.b.c".rpartition("."), "prefix_rest".removeprefix("prefix_"))
print("%s" % str.maketrans("abc", "xyz"), "abcabc".translate(str.maketrans("abc", "xyz", "c")))
print("ß".center(5, "*"), "tab\tbed".expandtabs(), "x".ljust(3, "-") + "|", "Mississippi".replace("ss", "SS", 1))
