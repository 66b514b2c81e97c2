# A program writes where it starts, and each refusal is the errno a POSIX
# program expects, never WASI's ENOTCAPABLE (76) (docs/wasi.md, Where a guest
# stands). errno numbers are WASI's (EROFS is 69), so names are printed.
import errno
import os

with open("out.txt", "w") as f:
    f.write("written where it stands")
print("cwd", os.getcwd(), open("out.txt").read(), open("/out.txt").read() == open("./out.txt").read())
os.mkdir("work")
with open("work/a.txt", "w") as f:
    f.write("a")
os.link("work/a.txt", "b.txt")
print("hard link", os.stat("b.txt").st_nlink, open("b.txt").read())
for what, attempt in [("read-only", lambda: open("/usr/local/new.txt", "w")),
                      ("escape", lambda: open("/tmp/../x.txt", "w")),
                      ("absolute link", lambda: os.symlink("/b.txt", "abs")),
                      ("missing", lambda: open("/nowhere/x.txt"))]:
    try:
        attempt()
        print(what, "MADE: this must never print")
    except OSError as e:
        print(what, type(e).__name__, errno.errorcode[e.errno])
