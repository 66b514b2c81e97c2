# Reading a text input: lines, words, frequencies, unicode.
import errno
import os
import re
from collections import Counter

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
path = os.path.join(INPUT, "poem.txt")
with open(path, encoding="utf-8") as f:
    text = f.read()
lines = text.splitlines()
words = re.findall(r"[^\W\d_]+", text.lower())
print("bytes", os.path.getsize(path), "chars", len(text), "lines", len(lines), "words", len(words))
print("blank lines", sum(1 for line in lines if not line.strip()), "longest:", max(lines, key=len))
for word, n in sorted(Counter(words).items(), key=lambda kv: (-kv[1], kv[0]))[:8]:
    print(f"{word:10} {n}")
print("non-ascii words:", sorted({w for w in words if not w.isascii()}))
with open(path, "rb") as f:
    head = f.read(30)
print(head, head.decode("utf-8", errors="replace"))
with open(path, encoding="ascii", errors="backslashreplace") as f:
    print(f.readlines()[-1].rstrip())
try:
    open(os.path.join(INPUT, "does-not-exist.txt"))
except FileNotFoundError as e:
    # errno numbers are platform facts (WASI has ENOENT = 44, Linux 2): compare by name.
    print("FileNotFoundError", errno.errorcode[e.errno], e.strerror)
