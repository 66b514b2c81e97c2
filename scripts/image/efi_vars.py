#!/usr/bin/env python3
"""Reads and writes the UEFI variable store of an OVMF variables file (the
`OVMF_VARS_4M*.fd` files of Debian's ovmf), offline: the image build enrolls
its Secure Boot keys this way, and the PCR prediction reads back exactly what
the firmware will measure.

Usage:
  efi_vars.py enroll TEMPLATE OUT --pk CERT --kek CERT --db CERT [--db CERT]...
                     [--owner GUID] [--epoch SECONDS]
      Copies TEMPLATE (a store with no PK: Debian's OVMF_VARS_4M.fd) to OUT
      with PK, KEK and db set to one X.509 signature list each (CERT is PEM
      or DER), SecureBootEnable 1 and CustomMode 0: a firmware in user mode
      that boots only what db's certificates signed.
  efi_vars.py show FILE
      One line a live variable: name, vendor GUID, attributes, size, SHA-256.

The format (EDK II, MdeModulePkg/Include/Guid/VariableFormat.h): a firmware
volume header, a variable store header (the authenticated-variable GUID),
then variables one after the other, each a 60-byte header (start id 0x55AA,
state, attributes, monotonic count, time stamp, public key index, name and
data sizes, vendor GUID), the name in UTF-16LE with its NUL, the data, and
padding to 4 bytes. A variable whose state is not VAR_ADDED (0x3F) is an old
copy. New variables go in the free space after the last one, which is what
the firmware itself does; nothing else in the file is touched.

Why not a tool: Debian 12 packages none that edits a variables file offline
(virt-firmware is not packaged there; efitools writes through a running
firmware), and the layout is a header and a loop.
"""
import hashlib
import os
import struct
import subprocess
import sys
import time
import uuid

GLOBAL = uuid.UUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")           # EFI_GLOBAL_VARIABLE
IMAGE_SECURITY = uuid.UUID("d719b2cb-3d3a-4596-a3bc-dad00e67656f")   # db, dbx
SECURE_BOOT_ENABLE = uuid.UUID("f0a30bc7-af08-4556-99c4-001009c93a44")
CUSTOM_MODE = uuid.UUID("c076ec0c-7028-4399-a072-71ee5c448b9f")
CERT_X509 = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")        # EFI_CERT_X509_GUID
AUTH_VARIABLE_STORE = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
NV_DATA_FV = uuid.UUID("fff12b8d-7696-4c8b-a985-2747075b4f50")

NV, BS, RT, TIME_AUTH = 0x1, 0x2, 0x4, 0x20
VAR_ADDED = 0x3F
HEADER = struct.Struct("<HBBIQ16sIII16s")  # 60 bytes
MAX_FILE = 16 << 20


class StoreError(Exception):
    pass


def fail(msg):
    raise StoreError(msg)


def store_bounds(buf):
    """(first variable offset, end of the store) of an OVMF variables file."""
    if len(buf) < 0x100 or buf[40:44] != b"_FVH" or uuid.UUID(bytes_le=bytes(buf[16:32])) != NV_DATA_FV:
        fail("not an OVMF variables file (no NV data firmware volume header)")
    header_len = struct.unpack_from("<H", buf, 48)[0]
    if uuid.UUID(bytes_le=bytes(buf[header_len:header_len + 16])) != AUTH_VARIABLE_STORE:
        fail("the variable store is not an authenticated-variable store")
    size, fmt, state = struct.unpack_from("<IBB", buf, header_len + 16)
    if fmt != 0x5A or state != 0xFE or header_len + size > len(buf):
        fail("the variable store header is not formatted and healthy")
    return header_len + 28, header_len + size


def variables(buf):
    """Yields (offset, state, attributes, name, guid, data, next offset)."""
    off, end = store_bounds(buf)
    while off + HEADER.size <= end:
        start, state, _, attrs, _, _, _, name_size, data_size, guid = HEADER.unpack_from(buf, off)
        if start != 0x55AA:
            return
        name_at = off + HEADER.size
        if name_at + name_size + data_size > end:
            fail(f"the variable at offset {off:#x} runs past the store")
        name = bytes(buf[name_at:name_at + name_size]).decode("utf-16-le").rstrip("\0")
        data = bytes(buf[name_at + name_size:name_at + name_size + data_size])
        next_off = (name_at + name_size + data_size + 3) & ~3
        yield off, state, attrs, name, uuid.UUID(bytes_le=bytes(guid)), data, next_off
        off = next_off


def live(buf):
    """{(name, guid): (attributes, data)} of the variables in use."""
    return {(n, g): (a, d) for _, s, a, n, g, d, _ in variables(buf) if s == VAR_ADDED}


def free_offset(buf):
    off = store_bounds(buf)[0]
    for *_, next_off in variables(buf):
        off = next_off
    return off


def efi_time(epoch):
    t = time.gmtime(epoch)
    return struct.pack("<HBBBBBBIhBB", t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, 0, 0, 0, 0, 0)


def x509_signature_list(der, owner):
    """One EFI_SIGNATURE_LIST of one X.509 certificate (UEFI 2.x, 32.4.1)."""
    entry = owner.bytes_le + der
    return CERT_X509.bytes_le + struct.pack("<III", 28 + len(entry), 0, len(entry)) + entry


def append(buf, name, guid, attrs, data, epoch):
    if any(n == name and g == guid for n, g in live(buf)):
        fail(f"{name} is already set in the template; start from a store without it (OVMF_VARS_4M.fd)")
    off, end = free_offset(buf), store_bounds(buf)[1]
    encoded = (name + "\0").encode("utf-16-le")
    stamp = efi_time(epoch) if attrs & TIME_AUTH else bytes(16)
    record = HEADER.pack(0x55AA, VAR_ADDED, 0, attrs, 0, stamp, 0, len(encoded), len(data), guid.bytes_le) + encoded + data
    if off + len(record) > end or any(b != 0xFF for b in buf[off:off + len(record)]):
        fail(f"no free space for {name} in the variable store")
    buf[off:off + len(record)] = record


def read_cert(path):
    raw = open(path, "rb").read(1 << 20)
    if raw.startswith(b"-----BEGIN"):
        raw = subprocess.run(["openssl", "x509", "-in", path, "-outform", "DER"], check=True,
                             capture_output=True).stdout
    return raw


def enroll(args):
    template, out, rest = args[0], args[1], args[2:]
    certs = {"--pk": [], "--kek": [], "--db": []}
    owner, epoch = uuid.UUID("00000000-0000-0000-0000-000000000000"), 0
    while rest:
        flag, value = rest[0], rest[1] if len(rest) > 1 else fail(f"{rest[0]} needs a value")
        rest = rest[2:]
        if flag in certs:
            certs[flag].append(read_cert(value))
        elif flag == "--owner":
            owner = uuid.UUID(value)
        elif flag == "--epoch":
            epoch = int(value)
        else:
            fail(f"unknown argument {flag}")
    if any(len(v) == 0 for v in certs.values()) or len(certs["--pk"]) > 1 or len(certs["--kek"]) > 1:
        fail("enroll needs one --pk, one --kek and at least one --db")
    with open(template, "rb") as f:
        buf = bytearray(f.read(MAX_FILE + 1))
    if len(buf) > MAX_FILE:
        fail(f"{template} is larger than {MAX_FILE} bytes")
    if any(n in ("PK", "KEK", "db") for n, _ in live(buf)):
        fail(f"{template} already holds Secure Boot keys; start from OVMF_VARS_4M.fd")
    auth = NV | BS | RT | TIME_AUTH
    # The order the firmware's own enrollment writes them: db, KEK, then PK
    # last (setting PK leaves setup mode).
    append(buf, "db", IMAGE_SECURITY, auth, b"".join(x509_signature_list(c, owner) for c in certs["--db"]), epoch)
    append(buf, "KEK", GLOBAL, auth, x509_signature_list(certs["--kek"][0], owner), epoch)
    append(buf, "PK", GLOBAL, auth, x509_signature_list(certs["--pk"][0], owner), epoch)
    append(buf, "SecureBootEnable", SECURE_BOOT_ENABLE, NV | BS, b"\x01", epoch)
    append(buf, "CustomMode", CUSTOM_MODE, NV | BS, b"\x00", epoch)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out)


def show(args):
    with open(args[0], "rb") as f:
        buf = f.read(MAX_FILE)
    for (name, guid), (attrs, data) in sorted(live(buf).items(), key=lambda kv: (str(kv[0][1]), kv[0][0])):
        print(f"{name} {guid} {attrs:#x} {len(data)} {hashlib.sha256(data).hexdigest()}")


def main(argv):
    try:
        if len(argv) >= 3 and argv[0] == "enroll":
            enroll(argv[1:])
        elif len(argv) == 2 and argv[0] == "show":
            show(argv[1:])
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (StoreError, OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"efi_vars: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
