// Strings: methods, template literals, unicode, stable sort, normalisation.
const s = "  Hello, World! Hello!  ";
print(JSON.stringify(s.trim()), s.trimStart().length, s.indexOf("Hello"), s.lastIndexOf("Hello"), s.split("Hello").length);
print("abc".padStart(6, "12"), "abc".repeat(3), "a-b-c".split("-", 2).join("|"), "Mississippi".replace("ss", "SS"), "x".concat(1, null));
print("ß".toUpperCase(), "İ".toLowerCase().length, "ǅ".toLowerCase(), "ΣΑΣ".toLowerCase(), "straße".normalize("NFD").length);
const e1 = "caf\u00e9", e2 = "cafe\u0301";
print(e1 === e2, e1.normalize() === e2.normalize(), e2.length, e2.normalize("NFC").length, "ﬁ".normalize("NFKC"));
print("😀".codePointAt(0).toString(16), "😀".charCodeAt(0).toString(16), [..."a😀b"].length, String.fromCodePoint(0x1f600, 65));
print(String.raw`a\nb${1 + 1}`, `multi
line`, `${[1, 2]}${{}}${null}`);
const people = [["carol", 25], ["alice", 30], ["bob", 25], ["dave", 30], ["erin", 25]];
print(people.sort((a, b) => a[1] - b[1]).map((p) => p[0]).join(","));
print(["b", "a", "C", "B", "é", "e"].sort().join(","), ["10", "9", "1"].sort().join(","));
print("Hello".at(-1), "abc".localeCompare === undefined, "a,b,,c".split(","), encodeURIComponent("a b&c/é"), decodeURIComponent("%E2%98%83"));
print(escape === undefined ? "no escape" : escape("ä b"), "Tab\tNew\\n".length, "abc" < "abd", "a" < "B", "Z" < "a");
const words = "the quick brown fox jumps over the lazy dog".split(" ");
print(words.map((w) => w[0].toUpperCase() + w.slice(1)).join(" "), words.reduce((m, w) => (w.length > m.length ? w : m)));
print("x".isWellFormed ? "has isWellFormed" : "no isWellFormed", "abc".replace(/b/, "$&$&"), "%d".length, "\u0041\x42\u{43}");
