# Reading a binary input: a header, fixed-size records, a CRC-32 trailer.
import os
import struct
import zlib

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
with open(os.path.join(INPUT, "records.bin"), "rb") as f:
    blob = f.read()
body, (crc,) = blob[:-4], struct.unpack("<I", blob[-4:])
print("size", len(blob), "crc ok", zlib.crc32(body) == crc, f"{crc:08x}")
magic, version, count = struct.unpack_from("<4sII", body)
print(magic, version, count)
fmt = struct.Struct("<HhfI8s")
records = list(fmt.iter_unpack(body[12:]))
print(len(records) == count, fmt.size)
for rec in records[:3] + records[-2:]:
    print(rec[0], rec[1], rec[2], hex(rec[3]), rec[4].decode())
print("sum of shorts", sum(r[1] for r in records), "max float", max(r[2] for r in records))
print("xor of words", hex(__import__("functools").reduce(lambda a, r: a ^ r[3], records, 0)))
with open(os.path.join(INPUT, "records.bin"), "rb") as f:
    f.seek(-4, os.SEEK_END)
    print("tail", f.read().hex(), "at", f.tell())
    f.seek(12 + fmt.size * 10)
    print("record 10", fmt.unpack(f.read(fmt.size)))
