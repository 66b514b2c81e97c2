#!/usr/bin/env python3
"""Checks a sealed image's root squashfs and lists what is in it.

Usage: check_root.py ROOT.squashfs CONTENTS.txt

Unpacks the squashfs (unsquashfs, into a temporary folder) and refuses it,
naming each offender, when it holds
  - a shell, an interpreter, a package manager or a remote login (by name:
    sh, bash, busybox, python3.11, perl, apt, ssh ...; the same list as
    volent-init's check from inside, src/volent/init/selfcheck.cc),
  - a script (a file starting with "#!"),
  - a set-user-ID or set-group-ID file, a file anyone may write, a device
    node, a FIFO or a socket,
  - a symbolic link that leaves the root,
  - an ELF program whose loader is not /lib64/ld-linux-x86-64.so.2.
Writes CONTENTS.txt (every path with its size and mode, sorted) and prints
the payload by kind. Exit 0 when the root passes, 1 otherwise.
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

EXACT = {"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox", "toybox",
         "rbash", "node", "nodejs", "gdb", "su", "sudo", "ssh", "sshd", "apt", "apt-get", "dpkg", "login"}
VERSIONED = re.compile(r"^(python|perl|ruby|lua|php|tclsh|wish)[0-9.]*$")
LOADER = b"/lib64/ld-linux-x86-64.so.2"


def interpreter(path):
    """The PT_INTERP of an ELF64 file, None if it has none or is not ELF."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return None
        phoff = int.from_bytes(head[32:40], "little")
        phentsize = int.from_bytes(head[54:56], "little")
        phnum = int.from_bytes(head[56:58], "little")
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ph = f.read(phentsize)
            if int.from_bytes(ph[0:4], "little") == 3:  # PT_INTERP
                offset = int.from_bytes(ph[8:16], "little")
                size = int.from_bytes(ph[32:40], "little")
                f.seek(offset)
                return f.read(size).rstrip(b"\0")
    return None


def kind(rel):
    if rel.startswith("usr/lib"):
        return "shared libraries (Debian's)"
    if rel.startswith("usr/bin/"):
        return "the node (volent)"
    if rel.startswith("usr/share/ampoule/"):
        return "the Ampoule kernel (sealed tools)"
    if rel.startswith("etc/ssl/"):
        return "CA certificates"
    return "configuration"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    squashfs, contents = argv[1], argv[2]
    tmp = tempfile.mkdtemp()
    try:
        root = os.path.join(tmp, "root")
        subprocess.run(["unsquashfs", "-q", "-n", "-no-xattrs", "-d", root, squashfs], check=True,
                       stdout=subprocess.DEVNULL)
        problems, listing, sizes = [], [], {}
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(dirs + files):
                full = os.path.join(folder, name)
                rel = os.path.relpath(full, root)
                st = os.lstat(full)
                mode = st.st_mode
                listing.append(f"{stat.filemode(mode)} {st.st_size:>10} /{rel}")
                if name in EXACT or VERSIONED.match(name):
                    problems.append(f"/{rel}: a shell, interpreter or login by its name")
                if mode & (stat.S_ISUID | stat.S_ISGID):
                    problems.append(f"/{rel}: set-user-ID or set-group-ID")
                if stat.S_ISLNK(mode):
                    target = os.path.normpath(os.path.join(os.path.dirname(rel), os.readlink(full)))
                    if os.path.isabs(os.readlink(full)) or target.startswith(".."):
                        problems.append(f"/{rel}: a link that leaves the root ({os.readlink(full)})")
                    continue
                if mode & stat.S_IWOTH:
                    problems.append(f"/{rel}: anyone may write it")
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                    problems.append(f"/{rel}: a device, FIFO or socket")
                if not stat.S_ISREG(mode):
                    continue
                sizes[kind(rel)] = sizes.get(kind(rel), 0) + st.st_size
                with open(full, "rb") as f:
                    if f.read(2) == b"#!":
                        problems.append(f"/{rel}: a script")
                loader = interpreter(full)
                if loader is not None and loader != LOADER:
                    problems.append(f"/{rel}: an ELF program with the loader {loader.decode(errors='replace')}")
        with open(contents, "w") as f:
            f.write("\n".join(listing) + "\n")
        total = sum(sizes.values())
        print(f"image: root contents ({total} bytes before compression):", file=sys.stderr)
        for k, v in sorted(sizes.items(), key=lambda kv: -kv[1]):
            print(f"image:   {v / 1048576:6.1f} MiB  {k}", file=sys.stderr)
        for p in problems:
            print(f"image: root check: {p}", file=sys.stderr)
        if problems:
            return 1
        print(f"image: root check: no shell, interpreter, script, set-ID file or device ({len(listing)} entries)",
              file=sys.stderr)
        return 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
