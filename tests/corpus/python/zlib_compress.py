# zlib and gzip: compression levels, streaming, checksums, in-memory gzip.
import gzip
import hashlib
import zlib

text = ("".join(f"line {i}: {'abc' * (i % 7)} {i * i}\n" for i in range(2000))).encode()
print("raw", len(text), hashlib.sha256(text).hexdigest()[:16])
for level in (0, 1, 6, 9):
    comp = zlib.compress(text, level)
    print("level", level, len(comp), hashlib.sha256(comp).hexdigest()[:16], zlib.decompress(comp) == text)
co = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_FILTERED)
stream = b"".join(co.compress(text[i:i + 1000]) for i in range(0, len(text), 1000)) + co.flush()
do = zlib.decompressobj(-15)
print("raw deflate", len(stream), do.decompress(stream, 5000)[:20], len(do.unconsumed_tail))
print("crc32", zlib.crc32(text), "adler32", zlib.adler32(text), zlib.crc32(b"a", zlib.crc32(b"b")))
gz = gzip.compress(text, compresslevel=6, mtime=0)
print("gzip", len(gz), gz[:10].hex(), hashlib.sha256(gz).hexdigest()[:16], gzip.decompress(gz) == text)
try:
    zlib.decompress(b"not compressed")
except zlib.error as e:
    print("zlib.error:", e)
print(zlib.ZLIB_VERSION[:3], zlib.compress(b"") .hex(), zlib.decompress(zlib.compress(b"a" * 100000)).count(b"a"))
