#!/usr/bin/env python3
"""Unified kernel images (UKI) and PE/COFF digests for the UEFI boot profiles.

Usage:
  uki.py build STUB OUT .linux=FILE .initrd=FILE .cmdline=FILE .osrel=FILE
      systemd-boot's stub (linuxx64.efi.stub) with each FILE added as the
      named PE section (objcopy), each at the next 4 KiB boundary after the
      stub's image, then the PE time stamp set to SOURCE_DATE_EPOCH (0 when
      unset) and the checksum computed again: objcopy writes the time of day
      there, and nothing else of the output depends on when it was made. OUT is unsigned (sbsign signs it).
  uki.py authenticode FILE
      The SHA-256 Authenticode digest of a PE image (hex): what the firmware
      checks a signature against and measures into PCR 4.
  uki.py sections FILE
      One line a section: name, virtual size, SHA-256 of its first
      virtual-size bytes (what systemd's stub measures into PCR 11).

The Authenticode digest follows the PE/COFF specification ("Calculating the
PE Image Hash"), as EDK II's measurement does it (Tcg2Dxe,
MeasurePeImageAndExtend): the headers without the checksum and the
certificate-table entry, every section's raw data in file order, then what
follows the sections up to the attribute certificate table.

Why not ukify: Debian 12's systemd (252) does not package it; objcopy is
what systemd's own documentation used before ukify existed.
"""
import hashlib
import os
import struct
import subprocess
import sys

SECTION_ORDER = (".osrel", ".cmdline", ".linux", ".initrd")
MAX_FILE = 512 << 20


class PeError(Exception):
    pass


class Pe:
    """The parts of a PE32+ image the digests need. Every offset is checked
    against the file: the input may be anyone's."""

    def __init__(self, data):
        self.data = data
        if len(data) < 0x40 or data[:2] != b"MZ":
            raise PeError("not a PE image (no MZ header)")
        self.pe = struct.unpack_from("<I", data, 0x3C)[0]
        if self.pe + 24 > len(data) or data[self.pe:self.pe + 4] != b"PE\0\0":
            raise PeError("not a PE image (no PE signature)")
        self.nsections, self.timestamp_at = struct.unpack_from("<H", data, self.pe + 6)[0], self.pe + 8
        opt_size = struct.unpack_from("<H", data, self.pe + 20)[0]
        self.opt = self.pe + 24
        if self.opt + opt_size > len(data) or opt_size < 112 + 5 * 8:
            raise PeError("the optional header is truncated")
        if struct.unpack_from("<H", data, self.opt)[0] != 0x20B:
            raise PeError("not a PE32+ image")
        self.checksum_at = self.opt + 64
        self.size_of_headers = struct.unpack_from("<I", data, self.opt + 60)[0]
        self.size_of_image = struct.unpack_from("<I", data, self.opt + 56)[0]
        self.cert_dir_at = self.opt + 112 + 4 * 8
        self.cert_offset, self.cert_size = struct.unpack_from("<II", data, self.cert_dir_at)
        if self.size_of_headers > len(data) or self.cert_offset + self.cert_size > len(data):
            raise PeError("the headers or the certificate table run past the file")
        self.sections = []
        table = self.opt + opt_size
        for i in range(self.nsections):
            at = table + 40 * i
            if at + 40 > len(data):
                raise PeError("the section table is truncated")
            name = data[at:at + 8].rstrip(b"\0").decode("ascii", "replace")
            vsize, vaddr, raw_size, raw_at = struct.unpack_from("<IIII", data, at + 8)
            if raw_at + raw_size > len(data):
                raise PeError(f"section {name} runs past the file")
            self.sections.append((name, vsize, vaddr, raw_size, raw_at))

    def authenticode_sha256(self):
        d, h = self.data, hashlib.sha256()
        h.update(d[:self.checksum_at])
        h.update(d[self.checksum_at + 4:self.cert_dir_at])
        h.update(d[self.cert_dir_at + 8:self.size_of_headers])
        hashed = self.size_of_headers
        for _, _, _, raw_size, raw_at in sorted(self.sections, key=lambda s: s[4]):
            if raw_size:
                h.update(d[raw_at:raw_at + raw_size])
                hashed += raw_size
        end = len(d) - self.cert_size
        if end > hashed:
            h.update(d[hashed:end])
        return h.hexdigest()

    def section_digests(self):
        """[(name, virtual size, sha256 hex)]: the section's bytes as loaded."""
        out = []
        for name, vsize, _, raw_size, raw_at in self.sections:
            body = self.data[raw_at:raw_at + min(vsize, raw_size)] + bytes(max(0, vsize - raw_size))
            out.append((name, vsize, hashlib.sha256(body).hexdigest()))
        return out


def pe_checksum(image, checksum_at):
    """The optional header's CheckSum (as imagehlp's CheckSumMappedFile):
    the file's 16-bit words summed with the carries folded in, the checksum
    field itself left out, plus the file's length."""
    total = 0
    padded = bytes(image) + b"\0" * (len(image) % 2)
    for (word,) in struct.iter_unpack("<H", padded):
        total += word
    for (word,) in struct.iter_unpack("<H", bytes(image[checksum_at:checksum_at + 4])):
        total -= word
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (total + len(image)) & 0xFFFFFFFF


def read(path):
    with open(path, "rb") as f:
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise PeError(f"{path} is larger than {MAX_FILE} bytes")
    return data


def build(stub, out, pairs):
    files = dict(p.split("=", 1) for p in pairs)
    if sorted(files) != sorted(SECTION_ORDER):
        raise PeError("build needs exactly " + ", ".join(f"{s}=FILE" for s in SECTION_ORDER))
    at = (Pe(read(stub)).size_of_image + 0xFFF) & ~0xFFF
    args = ["objcopy"]
    for name in SECTION_ORDER:
        size = os.path.getsize(files[name])
        args += ["--add-section", f"{name}={files[name]}", "--change-section-vma", f"{name}={at:#x}"]
        at = (at + size + 0xFFF) & ~0xFFF
    tmp = out + ".tmp"
    subprocess.run(args + [stub, tmp], check=True)
    image = bytearray(read(tmp))
    pe = Pe(bytes(image))
    struct.pack_into("<I", image, pe.timestamp_at, int(os.environ.get("SOURCE_DATE_EPOCH", "0")))
    # objcopy's checksum covered its time stamp: computed again over ours.
    struct.pack_into("<I", image, pe.checksum_at, pe_checksum(image, pe.checksum_at))
    with open(tmp, "wb") as f:
        f.write(image)
    os.replace(tmp, out)


def main(argv):
    try:
        if len(argv) >= 3 and argv[0] == "build":
            build(argv[1], argv[2], argv[3:])
        elif len(argv) == 2 and argv[0] == "authenticode":
            print(Pe(read(argv[1])).authenticode_sha256())
        elif len(argv) == 2 and argv[0] == "sections":
            for name, vsize, digest in Pe(read(argv[1])).section_digests():
                print(name, vsize, digest)
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (PeError, OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"uki: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
