#!/usr/bin/env python3
"""Makes a fixed VHD's footer reproducible: qemu-img writes the creation time
and a random UUID into it, so two conversions of the same disk differ.

Usage: vhd_footer.py DISK.vhd SOURCE_DATE_EPOCH SEED

Sets the footer's time stamp to SOURCE_DATE_EPOCH (seconds since
2000-01-01, the format's epoch; 0 before it), its UUID to one derived from
SEED (the root hash: another root, another UUID), and recomputes the
checksum (the one's complement of the byte sum), as the VHD specification
(Virtual Hard Disk Image Format Specification, "Hard Disk Footer Format")
lays them out. A fixed VHD has only this footer, in its last 512 bytes.
"""
import hashlib
import struct
import sys

VHD_EPOCH = 946684800  # 2000-01-01T00:00:00Z


def main(argv):
    if len(argv) != 4 or not argv[2].isdigit():
        sys.exit(__doc__.split("\n\n")[1])
    path, epoch, seed = argv[1], int(argv[2]), argv[3]
    with open(path, "r+b") as f:
        f.seek(-512, 2)
        footer = bytearray(f.read(512))
        if footer[0:8] != b"conectix" or struct.unpack(">I", footer[60:64])[0] != 2:
            sys.exit(f"vhd_footer: {path} does not end with a fixed VHD's footer")
        struct.pack_into(">I", footer, 24, max(0, epoch - VHD_EPOCH))
        uuid = bytearray(hashlib.sha256(b"volent-image-vhd:" + seed.encode()).digest()[:16])
        uuid[6] = (uuid[6] & 0x0F) | 0x50  # RFC 4122 name-based (version 5 layout)
        uuid[8] = (uuid[8] & 0x3F) | 0x80
        footer[68:84] = uuid
        footer[64:68] = b"\0\0\0\0"
        struct.pack_into(">I", footer, 64, ~sum(footer) & 0xFFFFFFFF)
        f.seek(-512, 2)
        f.write(footer)


if __name__ == "__main__":
    main(sys.argv)
