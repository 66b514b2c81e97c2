// Regular expressions: named groups, lookbehind, sticky and unicode flags, matchAll, replace.
const text = `Order #1042 placed 2024-03-15 by alice@example.com: 3 x Widget @ $2.50
Order #1043 placed 2024-03-16 by Bob.Smith@Example.ORG: 12 x Gadget @ $10.00`;
const re = /Order #(?<id>\d+) placed (?<date>\d{4}-\d{2}-\d{2}) by (?<email>\S+): (?<qty>\d+) x (?<item>\w+) @ \$(?<price>[\d.]+)/g;
for (const m of text.matchAll(re)) {
  const { id, date, email, qty, price, item } = m.groups;
  print(id, date, email.toLowerCase(), item, (qty * price).toFixed(2), m.index);
}
print("a1 b22 c333".replace(/\d+/g, (d) => d * 2), "Ada Lovelace".replace(/(?<f>\w+) (?<l>\w+)/, "$<l>, $<f>"));
print("cost $5 or $12.50 not 7".match(/(?<=\$)\d+(\.\d\d)?/g).join("|"), "one, two;three ,four".split(/\s*[,;]\s*/).join("|"));
const sticky = /\d+/y;
sticky.lastIndex = 2;
print(sticky.test("ab12cd"), sticky.lastIndex, sticky.test("ab12cd"));
print("naïve café 😀 ΣΑΣ".match(/\p{L}+/gu).join("|"), /^.$/u.test("😀"), /^.$/.test("😀"), "😀".length);
print("aaa".replaceAll("a", "b"), "x-y_z".split(/[-_]/).join(), /(a|ab)(c|bcd)(d*)/.exec("abcd").slice(1).join("/"));
print(JSON.stringify("2024-03-15".match(/(\d+)-(\d+)-(\d+)/).slice(1)), /colou?r/i.source, /x/gimsuy.flags);
const phone = /^(\+\d{1,3})?\s*\(?(\d{3})\)?[\s.-]*(\d{3})[\s.-]*(\d{4})$/;
for (const p of ["+1 (555) 123-4567", "555.123.4567", "555-12-34567"]) print(p, JSON.stringify(phone.exec(p)?.slice(1) ?? null));
print("line1\nline2".replace(/^/gm, "> "), /a.c/s.test("a\nc"), "Tab\there".search(/\t/), RegExp("[.*+?]").test("+"));
print("AbcDef".replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase()), "x".padEnd(3, "ab"), /\bis\b/.exec("this is")?.index);
