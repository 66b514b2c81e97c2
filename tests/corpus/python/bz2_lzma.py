# bz2 and lzma: compressed files from the input folder, round trips at several
# levels, incremental (de)compressors, and .xz and .bz2 files written and read
# back in a scratch folder.
import bz2
import hashlib
import json
import lzma
import os
import shutil
import tempfile

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


with bz2.open(os.path.join(INPUT, "notes.txt.bz2"), "rt") as f:
    lines = f.read().splitlines()
print(len(lines), lines[0], "|", lines[-1])
with lzma.open(os.path.join(INPUT, "events.json.xz")) as f:
    events = json.load(f)
print(len(events), events[:2], {k: sum(e["kind"] == k for e in events) for k in "abc"})

data = b"".join(b"%d,%s\n" % (i, b"x" * (i % 17)) for i in range(5000))
for level in (1, 6, 9):
    packed = bz2.compress(data, level)
    assert bz2.decompress(packed) == data
    print("bz2", level, len(packed), digest(packed))
for preset in (0, 6, 6 | lzma.PRESET_EXTREME):  # 9 needs 674 MiB to compress
    packed = lzma.compress(data, preset=preset)
    assert lzma.decompress(packed) == data
    print("xz", preset, len(packed), digest(packed))
for fmt, name in ((lzma.FORMAT_ALONE, "alone"), (lzma.FORMAT_RAW, "raw")):
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 3}] if fmt == lzma.FORMAT_RAW else None
    packed = lzma.compress(data, format=fmt, filters=filters)
    print(name, len(packed), lzma.decompress(packed, format=fmt, filters=filters) == data)
print("check", lzma.is_check_supported(lzma.CHECK_SHA256), lzma.is_check_supported(lzma.CHECK_CRC64))

comp, dec = bz2.BZ2Compressor(), bz2.BZ2Decompressor()
stream = b"".join(comp.compress(data[i:i + 1000]) for i in range(0, len(data), 1000)) + comp.flush()
out = b"".join(dec.decompress(stream[i:i + 333]) for i in range(0, len(stream), 333))
print("incremental bz2", out == data, dec.eof)
dec = lzma.LZMADecompressor()
packed = lzma.compress(data)
out = dec.decompress(packed, max_length=100)
print("lzma max_length", len(out), dec.needs_input)

work = tempfile.mkdtemp()
with lzma.open(os.path.join(work, "log.xz"), "wt", check=lzma.CHECK_SHA256) as f:
    for i in range(300):
        f.write(f"event {i}\n")
with bz2.open(os.path.join(work, "log.bz2"), "wb") as f:
    f.write(data)
with lzma.open(os.path.join(work, "log.xz"), "rt") as f:
    print("xz lines", sum(1 for _ in f))
with bz2.open(os.path.join(work, "log.bz2")) as f:
    f.seek(20000)
    print("bz2 seek", f.read(12), f.tell())
try:
    bz2.decompress(b"BZh9not really")
except (OSError, ValueError) as e:
    print(type(e).__name__, e)
try:
    lzma.decompress(b"\xfd7zXZ\x00garbage")
except lzma.LZMAError as e:
    print("LZMAError", e)
shutil.rmtree(work)
