# re: named groups, findall, sub with a function, split, flags, lookarounds.
import re

text = """Order #1042 placed 2024-03-15 by alice@example.com: 3 x Widget @ $2.50
Order #1043 placed 2024-03-16 by Bob.Smith@Example.ORG: 12 x Gadget @ $10.00
Order #1044 placed 2024-03-16 by carol@example.net: 1 x Gizmo Deluxe @ $99.99"""
pattern = re.compile(r"Order #(?P<id>\d+) placed (?P<date>\d{4}-\d{2}-\d{2}) by (?P<email>\S+): "
                     r"(?P<qty>\d+) x (?P<item>[\w ]+?) @ \$(?P<price>[\d.]+)")
for m in pattern.finditer(text):
    print(m.group("id"), m["date"], m["email"].lower(), int(m["qty"]) * float(m["price"]), m.span("item"))
print(re.findall(r"\b[A-Z]\w+", text))
print(re.findall(r"(\w+)@(\w+)\.(\w+)", text, flags=re.I))
print(re.sub(r"\d+", lambda m: str(int(m.group()) * 2), "a1 b22 c333"))
print(re.sub(r"(?P<first>\w+) (?P<last>\w+)", r"\g<last>, \g<first>", "Ada Lovelace"))
print(re.split(r"[,;]\s*", "one, two;three ,four"), re.split(r"(-)", "a-b-c", maxsplit=1))
print(re.findall(r"(?<=\$)\d+(?:\.\d\d)?(?!\d)", "cost $5 or $12.50 not 7"))
print(bool(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", "kebab-case-name")), re.match(r"x*", "abc").span())
print(re.escape("1+1=2? [yes]"), re.subn(r"o", "0", "foo boo"))
verbose = re.compile(r"""
    ^(\+\d{1,3})?     # country
    \s*\(?(\d{3})\)?  # area
    [\s.-]*(\d{3})    # exchange
    [\s.-]*(\d{4})$   # line
""", re.X)
for phone in ["+1 (555) 123-4567", "555.123.4567", "5551234567", "555-12-34567"]:
    m = verbose.match(phone)
    print(phone, "->", m.groups() if m else None)
print(re.findall(r"\w+", "naïve café Straße ŝ", flags=re.A), re.findall(r"\w+", "naïve café Straße ŝ"))
print(re.sub(r"(?m)^", "> ", "line1\nline2"), re.search(r"(a|ab)(c|bcd)(d*)", "abcd").groups())
