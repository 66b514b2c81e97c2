# unicodedata: names, categories, normalisation, widths; str case mapping.
import unicodedata as ud

for ch in "aÅ€☃😀ǅß٣\u0301\u200b中ﬁ":
    print(f"U+{ord(ch):04X} {ud.name(ch, '?'):40} {ud.category(ch)} {ud.east_asian_width(ch)} "
          f"{ud.bidirectional(ch)} {ud.combining(ch)} {ud.decimal(ch, '-')} {ud.numeric(ch, '-')}")
s = "Ame\u0301lie ﬁnal Ⅻ ｆｕｌｌ"
for form in ("NFC", "NFD", "NFKC", "NFKD"):
    n = ud.normalize(form, s)
    print(form, len(n), n.encode("unicode_escape").decode(), ud.is_normalized(form, s))
print(ud.lookup("SNOWMAN"), ud.lookup("LATIN SMALL LETTER SHARP S"), ud.unidata_version)
print("straße".upper(), "ǅ".lower(), "ǆ".title(), "ΣΑΣ".lower(), "ß".casefold() == "SS".casefold())
print("İ".lower().encode("unicode_escape"), "ﬀ".upper(), len("👩‍👩‍👧"), "x\u0301".isalpha(), "٣".isdigit(), "½".isnumeric())
print(sorted(["é", "e", "z", "E", "ä"]), sorted(["é", "e", "z", "E", "ä"], key=lambda w: ud.normalize("NFD", w)))
