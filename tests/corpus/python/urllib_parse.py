# urllib.parse, html and shlex: URLs, query strings, escaping, shell words.
import html
import shlex
from urllib.parse import parse_qs, parse_qsl, quote, quote_plus, unquote, urlencode, urljoin, urlparse, urlsplit

u = urlparse("https://user:pw@example.com:8443/a/b;params/c.html?q=1&q=2&x=%20y#frag")
print(u)
print(u.hostname, u.port, u.username, u.path, parse_qs(u.query), parse_qsl(u.query))
print(urljoin("http://a/b/c/d;p?q", "../g"), urljoin("http://a/b/c/d", "//other/x"), urljoin("http://a/b/", "?y"))
print(quote("a b/c?d=é"), quote("a b/c", safe=""), quote_plus("a b&c"), unquote("%E2%98%83%20x"))
print(urlencode({"q": "search term", "page": 2, "tags": ["a", "b"]}, doseq=True), urlsplit("file:///etc/x").path)
print(html.escape('<a href="x">Tom & "Jerry"</a>'), html.unescape("&lt;p&gt; &amp;copy; &copy; &#9731; &#x1F600;"))
print(shlex.split('cmd --name "John Smith" \'single quoted\' esc\\ aped # comment', comments=True))
print(shlex.quote("it's a file.txt"), shlex.join(["ls", "-l", "my dir"]))
