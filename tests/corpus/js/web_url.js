// URL and URLSearchParams (WHATWG URL standard): parsing special and opaque
// schemes, relative references, hosts (case, IPv4 forms, IPv6, Punycode),
// default ports, percent-encoding, setters, and the live link between a URL
// and its searchParams.
const show = (u) => [u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin].join(" | ");
const parse = (input, base) => {
  try {
    return show(base === undefined ? new URL(input) : new URL(input, base));
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

console.log("-- absolute");
for (const input of [
  "https://User:Pa%20ss@EXAMPLE.com:443/a/./b/../c?q=1&r=a b#frag ment",
  "HTTP://example.COM:80/",
  "http://example.com:8080",
  "ws://chat.example:80/room",
  "wss://chat.example:443/room",
  "ftp://files.example:21/pub/",
  "file:///C:/Users/me/notes.txt",
  "file://localhost/etc/hosts",
  "file://server/share/x",
  "mailto:someone@example.com?subject=Hello World",
  "data:text/plain,hello world",
  "urn:isbn:0451450523",
  "javascript:alert(1)",
  "sc://Host.Example/Path?Q#F",
  "sc:opaque path?query#fragment",
  "blob:https://example.com:443/uuid",
  "http://[2001:DB8:0:0:0:0:0:1]:8080/",
  "http://[::ffff:192.168.0.1]/",
  "http://0x7f.1/",
  "http://192.168.257/",
  "http://3232235777/",
  "http://münchen.de/straße?ä=ö#ü",
  "http://EXAMPLE.com./path",
  "http://ex%41mple.com/",
  "https://example.com/\u00e9/%7e/~/ /\"/<>/`/{}/|/^",
  "http://example.com/?a='b'&c=\"d\"",
  "foo://example.com/?a='b'",
  "http://example.com/#a b\"<>`",
  "http://a/b/%2e%2E/c/%2e/d",
  "  \t http://example.com/trim \n ",
  "http://exa\tmple.com/new\nline",
  "http://example.com:65536/",
  "http://exa mple.com/",
  "http://[::1/",
  "http://1.2.3.4.5/",
  "http://example.com:port/",
  "https://",
  "no-scheme",
  "http://example.com:0/",
  "non-special://host:99999/",
]) console.log(JSON.stringify(input), "=>", parse(input));

console.log("-- relative");
const base = "http://user@example.com/a/b/c?x=1#top";
for (const ref of ["d", "./d", "../d", "../../../d", "/d", "//other.org/d", "?y=2", "#bottom", "", ".", "..",
  "d?y#z", "\\d\\e", "https:d", "http:d", "mailto:x@y"]) {
  console.log(JSON.stringify(ref), "=>", parse(ref, base));
}
console.log(parse("g", "file:///C:/dir/file"), "||", parse("/g", "file:///C:/dir/file"), "||", parse("..", "file:///C:/"));
console.log(parse("x", "sc:opaque"), "||", parse("#x", "sc:opaque"), "||", parse("x", "not a url"));

console.log("-- setters");
const u = new URL("https://example.com/path?a=1#h");
u.protocol = "http";
u.username = "me";
u.password = "secret word";
u.hostname = "Example.ORG";
u.port = "8080";
u.pathname = "/new path/./x/../y";
u.search = "b=2&c=3";
u.hash = "section 2";
console.log(u.href);
u.port = "80";
console.log(u.href, JSON.stringify(u.port));
u.host = "other.example:9000";
u.protocol = "file";
console.log(u.href);
u.protocol = "mailto";
console.log(u.href);
u.search = "";
u.hash = "";
console.log(u.href);
u.href = "https://reset.example/";
console.log(u.href, u.searchParams.size);
try {
  u.href = "not a url";
} catch (e) {
  console.log(e.name, e.message, u.href);
}
const m = new URL("mailto:me@example.com");
m.hostname = "ignored";
m.pathname = "ignored";
m.username = "ignored";
console.log(m.href, JSON.stringify(m.host), JSON.stringify(m.pathname));

console.log("-- URLSearchParams");
const p = new URLSearchParams("?b=2&a=1&b=3&c=%20x+y&d=%E2%9C%93&e&=empty");
console.log(p.toString(), p.size, p.get("b"), JSON.stringify(p.getAll("b")), p.get("c"), p.get("d"), JSON.stringify(p.get("e")), p.get("zz"));
p.append("a", "0");
p.set("b", "9");
p.delete("e");
console.log(p.toString(), p.has("a"), p.has("a", "0"), p.has("a", "7"));
p.delete("a", "1");
p.sort();
console.log(p.toString(), JSON.stringify([...p]), JSON.stringify([...p.keys()]), JSON.stringify([...p.values()]));
p.forEach((value, name) => console.log(`forEach ${name}=${value}`));
console.log(new URLSearchParams({ q: "a&b=c", "x y": "~!*'()" }).toString());
console.log(new URLSearchParams([["k", "v1"], ["k", "v2"]]).toString(), new URLSearchParams(new Map([["m", "1"]])).toString());
try {
  new URLSearchParams([["only-name"]]);
} catch (e) {
  console.log(e.name);
}
console.log(new URLSearchParams("a=%zz&b=%F0%9F%98%80&c=%FF").toString(), JSON.stringify(new URLSearchParams("x=%FF").get("x")));

console.log("-- live link");
const live = new URL("https://example.com/search?q=old&page=2");
live.searchParams.set("q", "new value");
live.searchParams.append("tag", "a&b");
console.log(live.href, live.search);
live.search = "?fresh=1";
console.log(live.searchParams.get("fresh"), live.searchParams.get("q"), live.searchParams.size);
live.searchParams.delete("fresh");
console.log(live.href, JSON.stringify(live.search));
const params = live.searchParams;
live.href = "https://example.com/?x=1";
console.log(params === live.searchParams, params.get("x"));

console.log("-- misc");
console.log(String(new URL("https://example.com/a")), JSON.stringify({ url: new URL("https://example.com/b?c") }));
console.log(URL.canParse("https://ok"), URL.canParse("nope"), URL.canParse("/path", "https://base.example"));
console.log(Object.prototype.toString.call(new URL("http://x")), Object.prototype.toString.call(new URLSearchParams()));
console.log(new URL("http://x/?q=1").searchParams instanceof URLSearchParams);
const twice = new URL("http://example.com/??a=1&b");
console.log(twice.search, JSON.stringify([...twice.searchParams]));
