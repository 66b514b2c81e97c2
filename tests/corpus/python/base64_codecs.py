# base64, binascii and codecs: every encoding round trip.
import base64
import binascii
import codecs

data = bytes(range(0, 256, 7)) + "ünïcode ✓".encode()
for name in ["b64encode", "urlsafe_b64encode", "b32encode", "b32hexencode", "b16encode", "a85encode", "b85encode"]:
    enc = getattr(base64, name)(data)
    dec = getattr(base64, name.replace("encode", "decode"))(enc)
    print(f"{name:18} {enc.decode()} {dec == data}")
print(base64.b64decode("aGVsbG8=") , base64.standard_b64decode(b"d29ybGQ"+ b"="))
try:
    base64.b64decode("abc", validate=True)
except binascii.Error as e:
    print("binascii.Error:", e)
print(binascii.hexlify(b"\x00\xffab", "-"), binascii.unhexlify("cafe"), binascii.crc32(b"hello"), binascii.crc_hqx(b"hello", 0))
print(codecs.encode("Hello, World", "rot13"), codecs.decode(b"68656c6c6f", "hex"), codecs.encode(b"xyz", "base64"))
for enc in ["utf-8", "utf-16-le", "utf-16", "latin-1", "cp1252", "utf-32-be", "idna", "punycode"]:
    try:
        b = "Grüße€".encode(enc)
        print(enc, b.hex(), b.decode(enc))
    except UnicodeError as e:
        print(enc, type(e).__name__, e)
print("ünïcode".encode("ascii", "xmlcharrefreplace"), b"\xff\xfeabc".decode("utf-8", "replace"))
print(base64.encodebytes(b"x" * 60))
