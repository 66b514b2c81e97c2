# struct: standard sizes and byte orders, padding, iter_unpack.
import struct

print(struct.pack("<i", -2), struct.pack(">i", -2), struct.pack("!H", 513), struct.pack("<q", 2 ** 62))
print(struct.pack("<d", 1.5).hex(), struct.pack(">f", -0.1).hex(), struct.pack("<e", 65504.0).hex())
print(struct.unpack("<3B2sxH", b"\x01\x02\x03ab\x00\x10\x00"), struct.calcsize("<3B2sxH"))
for fmt in ["<bhilq", "=bhilq", ">BHILQ", "<?cxf", "<10s5p", "!d", "<Nn" if False else "<e"]:
    print(fmt, struct.calcsize(fmt))
s = struct.Struct("<I5sH")
packed = s.pack(0xDEADBEEF, b"hello", 65535)
print(packed.hex(), s.unpack(packed), s.size, s.format)
print(list(struct.iter_unpack("<hh", bytes(range(12)))))
buf = bytearray(16)
struct.pack_into(">QQ", buf, 0, 1, 2 ** 64 - 1)
print(buf.hex(), struct.unpack_from(">Q", buf, 8))
for fmt, value in [("<b", 200), ("<H", -1), ("<?", 2), ("<c", b"ab")]:
    try:
        print(fmt, struct.pack(fmt, value))
    except struct.error as e:
        print(fmt, "struct.error:", e)
print(struct.unpack("<f", struct.pack("<f", 0.1))[0], struct.unpack("<d", b"\x00" * 7 + b"\x7f")[0])
