#!/usr/bin/env python3
"""Writes an initramfs: an uncompressed cpio archive in the kernel's "newc"
format (Documentation/driver-api/early-userspace/buffer-format.rst).

Usage: initramfs.py OUT NAME=FILE...
  NAME  the path inside the image (init, usr/lib/x); its folders are added
  FILE  a regular file on this machine; mode 0755 if executable, else 0644

Reproducible by construction: entries sorted by name, owner 0:0, every
mtime SOURCE_DATE_EPOCH (0 when unset), inode numbers by position, no
device numbers. The same inputs give the same bytes on any machine.

Why not Debian's cpio: it takes owners, inode and device numbers from the
files on disk, so a reproducible archive needs a staging tree, touch and
--reproducible; and a later image will want entries no staging tree can
hold without root (a /dev/console node). The format is a 110-byte header
and padding: fewer lines here than the workarounds there, and no package.
"""
import os
import stat
import sys

MAX_FILE = 256 << 20  # an initramfs is RAM: a larger input is a mistake


def entry(name, mode, ino, mtime, data=b""):
    fields = [ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, mtime, len(data),
              0, 0, 0, 0, len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0"
    pad = lambda n: b"\0" * (-n % 4)
    return head + pad(len(head)) + data + pad(len(data))


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__.split("\n\n")[1])
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    files = {}
    for arg in argv[2:]:
        name, path = arg.split("=", 1)
        name = name.strip("/")
        st = os.stat(path)
        if not name or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
            sys.exit(f"initramfs: {arg}: needs a name and a regular file under {MAX_FILE >> 20} MiB")
        with open(path, "rb") as f:
            files[name] = (0o755 if st.st_mode & 0o111 else 0o644, f.read())
    dirs = {os.path.dirname(n) for n in files}
    for d in list(dirs):
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    dirs.discard("")
    names = sorted(set(files) | dirs)
    out = bytearray()
    for ino, name in enumerate(names, start=1):
        if name in files:
            perm, data = files[name]
            out += entry(name, stat.S_IFREG | perm, ino, mtime, data)
        else:
            out += entry(name, stat.S_IFDIR | 0o755, ino, mtime)
    out += entry("TRAILER!!!", 0, 0, 0)
    tmp = argv[1] + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, argv[1])


if __name__ == "__main__":
    main(sys.argv)
