# array, bytearray and memoryview: typed buffers, slicing without copies, casts.
import array

a = array.array("i", range(10))
a.extend([100, -5])
print(a, a.itemsize, a.typecode, a.tobytes()[:8].hex(), a.index(100), a.count(1))
d = array.array("d", [0.5, 1.5, 2.25])
print(d.tobytes().hex(), sum(d), array.array("b", b"\x01\xff").tolist(), array.array("u", "hé").tounicode())
m = memoryview(bytearray(b"abcdefghij"))
part = m[2:6]
part[0] = ord("Z")
print(m.tobytes(), part.tobytes(), part.nbytes, m.readonly, m[::2].tobytes())
ints = memoryview(bytearray(range(16))).cast("I")
print(ints.tolist(), ints.itemsize, ints.format, ints.shape)
grid = memoryview(bytearray(range(12))).cast("B", shape=[3, 4])
print(grid.tolist(), grid[1, 2], grid.strides)
ba = bytearray(b"hello world")
ba[0:5] = b"HOWDY"
del ba[5:6]
ba.extend(b"!!")
print(ba, ba.find(b"wor"), bytes(ba).title(), ba.hex(":"), bytearray.fromhex("de ad be ef"))
print(bytes(5), b"abc" * 2, b"a,b,,c".split(b","), b"xyz".upper(), list(b"AZ"), bytes([72, 105]))
