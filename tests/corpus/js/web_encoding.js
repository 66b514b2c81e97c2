// TextEncoder / TextDecoder (UTF-8, Encoding standard) and atob / btoa
// (forgiving base64, HTML standard), with their errors.
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
const enc = new TextEncoder();
console.log(enc.encoding, Object.prototype.toString.call(enc));
for (const s of ["", "ascii", "café", "€", "😀", "a\u0000b", "\ud800", "x\udc00y", "\ud83d\ude00\ud83d", "\u{10ffff}"]) {
  const bytes = enc.encode(s);
  console.log(JSON.stringify(s), bytes.constructor.name, bytes.length, hex(bytes), bytes.buffer.byteLength);
}
console.log(enc.encode().length, hex(enc.encode(undefined)), hex(enc.encode(null)), hex(enc.encode(12.5)));
for (const [s, size] of [["aé😀", 4], ["aé😀", 7], ["aé😀", 3], ["abc", 0], ["😀😀", 5], ["\ud800z", 4]]) {
  const dest = new Uint8Array(size).fill(0xee);
  const r = enc.encodeInto(s, dest);
  console.log("encodeInto", JSON.stringify(s), size, JSON.stringify(r), hex(dest));
}
const view = new Uint8Array(8);
console.log(JSON.stringify(enc.encodeInto("hello", view.subarray(2, 5))), hex(view));

const dec = new TextDecoder();
console.log(dec.encoding, dec.fatal, dec.ignoreBOM, Object.prototype.toString.call(dec));
const cases = [
  [0x68, 0x69], [0xef, 0xbb, 0xbf, 0x41], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80],
  [0xff], [0xc3], [0xc3, 0x41], [0xe2, 0x82], [0xe2, 0x82, 0x41], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80],
  [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80, 0xbf],
  [0xf0, 0x80, 0x41], [0x41, 0xef, 0xbb, 0xbf, 0x42], [],
];
for (const bytes of cases) {
  const text = dec.decode(new Uint8Array(bytes));
  const codes = Array.from(text, (c) => c.codePointAt(0).toString(16));
  let fatal;
  try {
    fatal = JSON.stringify(new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes)));
  } catch (e) {
    fatal = `${e.name}: ${e.message}`;
  }
  console.log(hex(bytes), "->", codes.join(","), "| fatal:", fatal);
}
console.log(JSON.stringify(new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))));
const buffer = new Uint8Array([0x20, 0x61, 0xc3, 0xa9, 0x20]).buffer;
console.log(JSON.stringify(dec.decode(buffer)), JSON.stringify(dec.decode(new DataView(buffer, 1, 3))), JSON.stringify(dec.decode(new Uint16Array(buffer, 0, 2))));
console.log(JSON.stringify(dec.decode()), JSON.stringify(dec.decode(undefined)));
for (const label of ["UTF-8", "utf8", " Unicode-1-1-UTF-8\n"]) console.log(JSON.stringify(label), new TextDecoder(label).encoding);
try {
  dec.decode("not bytes");
} catch (e) {
  console.log(e.name);
}

// stream: a character split across chunks is decoded once it is complete.
const streamed = new TextDecoder();
const euro = [0xe2, 0x82, 0xac];
let out = "";
for (const chunk of [[0xef, 0xbb], [0xbf, 0x61, euro[0]], [euro[1]], [euro[2], 0xf0, 0x9f], [0x98, 0x80]]) {
  out += streamed.decode(new Uint8Array(chunk), { stream: true });
}
out += streamed.decode();
console.log(JSON.stringify(out), Array.from(out, (c) => c.codePointAt(0).toString(16)).join(","));
console.log(JSON.stringify(streamed.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + "|" + streamed.decode()));
const round = "Grüße, 世界! 🌍 \u0000 \u{1F468}\u200D\u{1F469}";
console.log(new TextDecoder().decode(new TextEncoder().encode(round)) === round);

console.log("-- base64");
for (const s of ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\u0000\u00ff\u0080", "Hello, World!"]) {
  const b = btoa(s);
  console.log(JSON.stringify(s), b, JSON.stringify(atob(b)) === JSON.stringify(s));
}
for (const b of ["Zm9v", "Zm9vYg", "Zm9vYg=", "Zm9vYg==", " Zm9v\nYmFy\t", "Zm9vYmFy====", "Zm9=vYmFy", "Z", "Zm9vY", "Zm9v!", "Zg==Zg==", "////", "++++", "=", ""]) {
  try {
    console.log(JSON.stringify(b), "->", JSON.stringify(atob(b)));
  } catch (e) {
    console.log(JSON.stringify(b), "->", e.name, e instanceof DOMException, e instanceof Error, e.code, e.message);
  }
}
console.log(btoa(null), btoa(undefined), btoa(123), JSON.stringify(atob(null)), JSON.stringify(atob(undefined + "d")));
try {
  btoa("€");
} catch (e) {
  console.log(e.name, e.message, e.code, String(e));
}
const bytes = new Uint8Array(256).map((_, i) => i);
const binary = String.fromCharCode(...bytes);
console.log(btoa(binary).length, atob(btoa(binary)) === binary);
const dx = new DOMException("custom", "NotFoundError");
console.log(dx.name, dx.message, dx.code, DOMException.NOT_FOUND_ERR, String(dx), new DOMException().name, new DOMException("m").code);
