#!/usr/bin/env python3
"""Predicts the PCRs a UEFI boot of the sealed image ends with, from the
artifacts the build made, and writes the policy an auditor checks a booted
node's report against (docs/attestation.md, "Predicted PCRs").

Usage:
  predict_pcrs.py full-chain --uki SIGNED_UKI --vars OVMF_VARS --roothash HEX -o POLICY
      PCRs 4, 7, 9 and 11 of the full-chain profile, written as a policy
      (pcrs, boot_profiles, secure_boot, verity_roothash, key_provenance);
      the auditor adds "signers" (the node's report key, learnt when the
      node was enrolled) before `volent attest --verify`.
  predict_pcrs.py shim-chain --shim SHIM --grub GRUB --kernel VMLINUZ --grub-cfg CFG --initrd INITRD
                             --roothash HEX -o POLICY
      PCRs 4, 8 and 9 of the shim-chain profile (PCR 7 is not predicted
      yet: shim's own SbatLevel and certificate entries).
  predict_pcrs.py events PROFILE ...
      The predicted events, one line each: PCR, what, SHA-256.

What each PCR holds in this profile (OVMF from Debian 12, systemd-boot's
stub 252, Debian's Linux 6.1; every digest SHA-256, every extend
PCR = SHA-256(PCR || digest) from 32 zero bytes):
  4  EV_EFI_ACTION "Calling EFI Application from Boot Option", the
     separator (four zero bytes), then EV_EFI_BOOT_SERVICES_APPLICATION:
     the UKI's Authenticode digest (uki.py).
  7  EV_EFI_VARIABLE_DRIVER_CONFIG of SecureBoot (1), PK, KEK, db and dbx
     (empty when not set), each the UEFI_VARIABLE_DATA structure (vendor
     GUID, name length, data length, UTF-16 name, data); the separator; then
     EV_EFI_VARIABLE_AUTHORITY: the db entry (owner GUID and certificate)
     that verified the UKI.
  9  the kernel's EFI stub: the command line it was given (UTF-16 with its
     NUL: LOADED_IMAGE::LoadOptions) and the initrd ("Linux initrd").
  11 systemd's stub: for .linux, .osrel, .cmdline and .initrd in that order,
     the section's name with its NUL, then the section's bytes.
PCRs 0 to 3, 5 and 6 are the firmware's and the machine's own (QEMU's
version, the devices): not predicted. The node's own PCR (node_pcr.h) is
checked through its PCR log, as in every profile: its start marker holds the
boot's id; the binaries it measures are known to the build and written as
"software" (--volent-sha256, --kernel-sha256).
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import efi_vars  # noqa: E402
import uki  # noqa: E402

SEPARATOR = bytes(4)
CALLING = b"Calling EFI Application from Boot Option"
STUB_SECTIONS = (".linux", ".osrel", ".cmdline", ".initrd")


def sha256(b):
    return hashlib.sha256(b).digest()


def variable_data(name, guid, data):
    """UEFI_VARIABLE_DATA (TCG PC Client Platform Firmware Profile, 10.2.6)."""
    encoded = name.encode("utf-16-le")
    return guid.bytes_le + struct.pack("<QQ", len(name), len(data)) + encoded + data


def signer_entry(pe, db):
    """The EFI_SIGNATURE_DATA of db whose certificate signed `pe`."""
    if pe.cert_size == 0:
        raise SystemExit("predict_pcrs: the UKI is not signed")
    signature = pe.data[pe.cert_offset:pe.cert_offset + pe.cert_size]
    found = None
    off = 0
    while off + 28 <= len(db):
        sig_type = uuid.UUID(bytes_le=db[off:off + 16])
        list_size, header_size, entry_size = struct.unpack_from("<III", db, off + 16)
        if list_size < 28 or off + list_size > len(db) or entry_size < 16:
            raise SystemExit("predict_pcrs: db holds a malformed signature list")
        at = off + 28 + header_size
        while sig_type == efi_vars.CERT_X509 and at + entry_size <= off + list_size:
            entry = db[at:at + entry_size]
            # The signer's certificate is carried whole in the PKCS#7 blob.
            if entry[16:] in signature:
                if found is not None and found != entry:
                    raise SystemExit("predict_pcrs: more than one db certificate is in the UKI's signature")
                found = entry
            at += entry_size
        off += list_size
    if found is None:
        raise SystemExit("predict_pcrs: no certificate of db signed the UKI: the firmware would refuse it")
    return found


def full_chain_events(uki_path, vars_path):
    pe = uki.Pe(uki.read(uki_path))
    with open(vars_path, "rb") as f:
        store = efi_vars.live(f.read(efi_vars.MAX_FILE))

    def var(name, guid):
        return store.get((name, guid), (0, b""))[1]

    events = [(4, "EV_EFI_ACTION Calling EFI Application from Boot Option", sha256(CALLING)),
              (4, "EV_SEPARATOR", sha256(SEPARATOR)),
              (4, "EV_EFI_BOOT_SERVICES_APPLICATION the UKI", bytes.fromhex(pe.authenticode_sha256()))]
    for name, guid, data in (("SecureBoot", efi_vars.GLOBAL, b"\x01"),
                             ("PK", efi_vars.GLOBAL, var("PK", efi_vars.GLOBAL)),
                             ("KEK", efi_vars.GLOBAL, var("KEK", efi_vars.GLOBAL)),
                             ("db", efi_vars.IMAGE_SECURITY, var("db", efi_vars.IMAGE_SECURITY)),
                             ("dbx", efi_vars.IMAGE_SECURITY, var("dbx", efi_vars.IMAGE_SECURITY))):
        events.append((7, f"EV_EFI_VARIABLE_DRIVER_CONFIG {name}", sha256(variable_data(name, guid, data))))
    events.append((7, "EV_SEPARATOR", sha256(SEPARATOR)))
    authority = signer_entry(pe, var("db", efi_vars.IMAGE_SECURITY))
    events.append((7, "EV_EFI_VARIABLE_AUTHORITY db", sha256(variable_data("db", efi_vars.IMAGE_SECURITY, authority))))

    sections = {}
    for name, vsize, _, raw_size, raw_at in pe.sections:
        sections[name] = pe.data[raw_at:raw_at + min(vsize, raw_size)] + bytes(max(0, vsize - raw_size))
    missing = [s for s in STUB_SECTIONS if s not in sections]
    if missing:
        raise SystemExit(f"predict_pcrs: the UKI lacks {', '.join(missing)}")
    for name in STUB_SECTIONS:
        events.append((11, f"section name {name}", sha256(name.encode() + b"\0")))
        events.append((11, f"section {name}", sha256(sections[name])))
    cmdline = sections[".cmdline"].decode("utf-8").rstrip("\0")
    events.append((9, "LOADED_IMAGE::LoadOptions", sha256((cmdline + "\0").encode("utf-16-le"))))
    events.append((9, "Linux initrd", sha256(sections[".initrd"])))
    return events


# What Debian 12's signed GRUB (grub-efi-amd64-signed 2.06-13) runs of its
# embedded configuration before it sources ours, as it measures each
# command into PCR 8, with the ESP as its first disk (hd0).
GRUB_EMBEDDED_COMMANDS = (
    "[ -z (hd0)/EFI/debian -o ! -e (hd0)/EFI/debian ]",
    "[ -e (hd0)/EFI/debian/x86_64-efi/grub.cfg ]",
    "[ -e (hd0)/EFI/debian/grub.cfg ]",
    "source (hd0)/EFI/debian/grub.cfg",
)
GRUB_CFG = "(hd0)/EFI/debian/grub.cfg"


def shim_chain_events(shim, grub, kernel, grub_cfg, initrd):
    """PCRs 4, 8 and 9 of OVMF -> shim -> GRUB -> Linux (shim 16.1, GRUB 2.06)."""
    def authenticode(path):
        return bytes.fromhex(uki.Pe(uki.read(path)).authenticode_sha256())

    def file_digest(path):
        with open(path, "rb") as f:
            return sha256(f.read(uki.MAX_FILE))

    kernel_digest = authenticode(kernel)
    events = [(4, "EV_EFI_ACTION Calling EFI Application from Boot Option", sha256(CALLING)),
              (4, "EV_SEPARATOR", sha256(SEPARATOR)),
              (4, "EV_EFI_BOOT_SERVICES_APPLICATION shim", authenticode(shim)),
              (4, "EV_EFI_BOOT_SERVICES_APPLICATION GRUB", authenticode(grub)),
              # Once as shim verifies what GRUB hands it, once as the
              # firmware's LoadImage starts it.
              (4, "EV_EFI_BOOT_SERVICES_APPLICATION the kernel", kernel_digest),
              (4, "EV_EFI_BOOT_SERVICES_APPLICATION the kernel", kernel_digest)]
    events += [(8, f"grub_cmd: {c}", sha256(c.encode())) for c in GRUB_EMBEDDED_COMMANDS]
    events.append((9, GRUB_CFG, file_digest(grub_cfg)))
    # Each line of our configuration is one command; GRUB measures it as it
    # runs it ("grub_cmd: " is the event's text, not part of the digest), and
    # the files `linux` and `initrd` read into PCR 9.
    with open(grub_cfg) as f:
        config = f.read(1 << 20)
    for line in config.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        events.append((8, f"grub_cmd: {line}", sha256(line.encode())))
        word, _, rest = line.partition(" ")
        if word == "linux":
            events.append((9, rest.split(" ")[0], file_digest(kernel)))
            events.append((8, f"kernel_cmdline: {rest}", sha256(rest.encode())))
        elif word == "initrd":
            events.append((9, rest, file_digest(initrd)))
    return events


def replay(events):
    pcrs = {}
    for index, _, digest in events:
        pcrs[index] = sha256(pcrs.get(index, bytes(32)) + digest)
    return {k: v.hex() for k, v in sorted(pcrs.items())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["full-chain", "shim-chain", "events"])
    parser.add_argument("profile", nargs="?", choices=["full-chain", "shim-chain"])
    parser.add_argument("--uki")
    parser.add_argument("--vars")
    parser.add_argument("--shim")
    parser.add_argument("--grub")
    parser.add_argument("--kernel")
    parser.add_argument("--grub-cfg")
    parser.add_argument("--initrd")
    parser.add_argument("--roothash")
    parser.add_argument("--volent-sha256", help="the node binary the root holds: pinned as software.volent")
    parser.add_argument("--kernel-sha256", help="the Ampoule kernel the root holds: software.ampoule_kernel")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    profile = args.profile if args.mode == "events" else args.mode
    needs = {"full-chain": ("uki", "vars"), "shim-chain": ("shim", "grub", "kernel", "grub_cfg", "initrd")}
    missing = [f"--{n.replace('_', '-')}" for n in needs.get(profile or "", ()) if not getattr(args, n)]
    if not profile or missing:
        parser.error(f"{profile or 'events'} needs {', '.join(missing) or 'a profile'}")
    try:
        if profile == "full-chain":
            events = full_chain_events(args.uki, args.vars)
        else:
            events = shim_chain_events(args.shim, args.grub, args.kernel, args.grub_cfg, args.initrd)
    except (uki.PeError, efi_vars.StoreError, OSError, UnicodeDecodeError) as e:
        print(f"predict_pcrs: {e}", file=sys.stderr)
        return 1
    if args.mode == "events":
        for index, what, digest in events:
            print(index, what, digest.hex())
        return 0
    if not args.roothash or not args.output:
        parser.error(f"{profile} needs --roothash and -o")
    policy = {
        "pcrs": {str(k): [v] for k, v in replay(events).items()},
        "boot_profiles": [profile],
        "secure_boot": "required",
        "verity_roothash": args.roothash,
    }
    # What the node measures into its own PCR that the build knows: the
    # binaries. (Its start marker holds the boot's id, so the PCR's value is
    # checked by replaying the node's log, tpm.node_pcr, never predicted.)
    software = {k: [v] for k, v in (("volent", args.volent_sha256), ("ampoule_kernel", args.kernel_sha256)) if v}
    if software:
        policy["software"] = software
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(policy, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
