// Regular expressions with Unicode: property escapes (general categories,
// scripts, binary properties), case-insensitive matching under /u, code
// point quantifiers, named groups with Unicode names, and /d indices.
// (QuickJS 2025-04-26 has no /v flag, so no set operations here.)
const check = (re, s) => JSON.stringify(s.match(re));
const text = "Grüße aus Köln! Привет, мир. Γειά σου κόσμε. 東京タワー 123 ٣٤٥ ½ Ⅻ 😀👍🏽 $€£ ‑—";
console.log(check(/\p{Lu}/gu, text));
console.log(check(/\p{Script=Greek}+/gu, text), check(/\p{sc=Cyrillic}+/gu, text));
console.log(check(/\p{Script=Han}+/gu, text), check(/\p{Script=Katakana}+/gu, text), check(/\p{scx=Hira}/gu, "ー"));
console.log(check(/\p{Nd}+/gu, text), check(/\p{N}+/gu, text), check(/\p{Sc}/gu, text), check(/\p{Pd}/gu, text));
console.log(check(/\p{Emoji_Presentation}/gu, text), check(/\p{Emoji_Modifier}/gu, text), check(/\P{ASCII}+/u, "abc→def"));
console.log(/^\p{L}+$/u.test("Ελληνικά"), /^\p{L}+$/u.test("abc1"), /\p{White_Space}/u.test("\u3000"), /^\p{Any}$/u.test("😀"));
console.log(/\u{1F600}/u.test("😀"), /^.$/u.test("😀"), /^..$/.test("😀"), "😀😀".match(/./gu).length, /^[😀-😂]$/u.test("😁"));
console.log(/STRASSE/iu.test("straße"), /ſ/iu.test("S"), /ſ/i.test("S"), /\u212a/iu.test("k"), /Σ/iu.test("ς"), /[Σ]/iu.test("σ"));
const m = /(?<год>\d{4})-(?<месяц>\d{2})/u.exec("дата: 2024-03");
console.log(m.groups.год, m.groups.месяц, JSON.stringify(Object.keys(m.groups)));
const d = /(?<word>\p{L}+)\s(?<num>\d+)/du.exec("→ Köln 42");
console.log(JSON.stringify(d.indices), JSON.stringify(d.indices.groups));
console.log("a😀b😀c".split(/(?:)/u).length, "a😀b😀c".split("").length, "😀x😀".replace(/\p{Extended_Pictographic}/gu, "[e]"));
console.log("Crème Brûlée".normalize("NFD").replace(/\p{Mn}/gu, ""), "ＡＢＣ１２３".normalize("NFKC"), "ﬀ".toUpperCase());
console.log([..."👨‍👩‍👧 flag: 🇫🇷"].length, "👨‍👩‍👧".match(/\p{Emoji}/gu).length);
for (const bad of ["\\p{NotAProperty}", "\\p{Script=Nope}", "\\p{L"]) {
  try {
    new RegExp(bad, "u");
    console.log("compiled?!", bad);
  } catch (e) {
    console.log(e.name, JSON.stringify(bad));
  }
}
console.log(new RegExp("\\p{L}").test("p{L}"), /[\s\S]/u.flags, /x/u.unicode, /x/.unicode);
