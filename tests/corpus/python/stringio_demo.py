# io.StringIO and BytesIO: print to them, iterate lines, wrap bytes as text.
import contextlib
import io

buf = io.StringIO()
print("first", 1, 2.5, sep=" | ", file=buf)
buf.write("second line\n")
print(*range(5), sep=",", end=";\n", file=buf)
value = buf.getvalue()
print(repr(value), buf.tell())
buf.seek(0)
print([line.rstrip("\n") for line in buf], buf.read())
reader = io.StringIO("a\r\nb\rc\n", newline=None)
print(reader.readlines())
raw = io.BytesIO()
text = io.TextIOWrapper(raw, encoding="utf-16-le", newline="\r\n")
text.write("héllo\nworld\n")
text.flush()
print(raw.getvalue().hex())
raw.seek(0)
print(repr(io.TextIOWrapper(io.BytesIO(raw.getvalue()), encoding="utf-16-le", newline="").read()))
b = io.BytesIO(b"0123456789")
b.seek(3)
print(b.read(4), b.read1(2), b.getbuffer().nbytes, b.seek(-2, io.SEEK_END), b.read())
captured = io.StringIO()
with contextlib.redirect_stdout(captured):
    print("captured text")
    help_text = "inner"
print("got", repr(captured.getvalue()), help_text)
with contextlib.suppress(ZeroDivisionError):
    1 / 0
print(io.StringIO("x").readable(), io.StringIO("x").seekable(), io.StringIO().closed)
