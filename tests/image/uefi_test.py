#!/usr/bin/env python3
"""The full-chain UEFI profile, built and booted under QEMU with OVMF and swtpm
(docs/image.md, "The UEFI profiles"; docs/attestation.md, "Predicted PCRs").

  tests/image/uefi_test.py --build DIR [--keep]

1. The build: scripts/build-image.sh makes the signed UKI, its ESP, OVMF's
   variables with the image's dev-only keys and the predicted policy; the
   UKI verifies against the db certificate and says dev-only.
2. What the firmware refuses, in one boot that tries three ESPs in turn: the
   UKI unsigned, signed by a key db does not hold, and signed but with one
   byte of its command line changed. Each is "Access Denied" and nothing
   boots. A second boot offers the good ESP to OVMF with Microsoft's keys
   enrolled instead (Debian's OVMF_VARS_4M.ms.fd): refused as well.
3. The boot: the node answers; its report says full-chain (derived from the
   quoted event log), Secure Boot enabled, module loading off, and carries the
   event log; the console says dev-only and that module loading is off.
   `volent attest --verify` with the build's predicted policy (and the node's
   report key as signer, as an enrollment would record it): VERIFIED, PCRs 4,
   7, 9 and 11 checked against values computed from the build alone.
4. The same report against what another build would predict: a UKI with
   another command line (pcrs.4, 9 and 11 fail), one initramfs byte changed
   (pcrs.4, 9 and 11), and a policy naming another root hash
   (boot.verity_roothash): FAILED, naming the claim.
5. The shim chain: OVMF with Microsoft's keys boots Debian's signed shim,
   GRUB and kernel with the image's GRUB configuration; the report says
   shim-chain and VERIFIES against the build's prediction of PCRs 4, 8 and 9,
   and fails (pcrs.8, pcrs.9) against a configuration with another command
   line.
Every QEMU runs under `timeout`; a boot that never answers is tried once more.

Prints `skipped: REASON` (exit 0) without QEMU, swtpm, OVMF, the stub,
sbsigntool, mtools, a static volent-init or the Ampoule kernel.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "image"))
from harness.checks import Checks, skip  # noqa: E402
from harness.cleanup import kill_at_exit, work_folder  # noqa: E402
from harness.http_client import request  # noqa: E402
import uki  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--build", required=True)
parser.add_argument("--keep", action="store_true")
args = parser.parse_args()
BUILD = os.path.abspath(args.build)
VOLENT = os.path.join(BUILD, "bin", "volent")
INIT = os.path.join(BUILD, "bin", "volent-init")
check = Checks(numbered=False)

for tool in ("qemu-system-x86_64", "swtpm", "swtpm_setup", "sbsign", "sbverify", "mcopy", "mkfs.vfat", "mksquashfs",
             "veritysetup"):
    if not shutil.which(tool):
        skip(f"{tool} not found (scripts/setup.sh installs it)")
for f in ("/usr/share/OVMF/OVMF_CODE_4M.secboot.fd", "/usr/share/OVMF/OVMF_VARS_4M.ms.fd",
          "/usr/lib/systemd/boot/efi/linuxx64.efi.stub", VOLENT, INIT,
          os.path.join(BUILD, "share", "ampoule", "ampoule.kernel")):
    if not os.path.isfile(f):
        skip(f"no {f} (scripts/setup.sh: ovmf, systemd-boot-efi; scripts/test.sh's build phase)")
if b"INTERP" in subprocess.run(["readelf", "-l", INIT], capture_output=True).stdout:
    skip(f"{INIT} is dynamically linked (sanitizer builds make it so); the initramfs has no loader")
kernel = subprocess.run(["bash", os.path.join(ROOT, "scripts", "image", "kernel.sh")], capture_output=True, text=True)
if kernel.returncode == 3:
    skip(f"no kernel: {kernel.stderr.strip().splitlines()[-1]}")

WORK = work_folder("volent-uefi-", keep=args.keep)
IMAGE = os.path.join(WORK, "image")
KEYS = os.path.join(WORK, "keys")

# --- 1. the build ---------------------------------------------------------------------------------
t0 = time.monotonic()
built = subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-image.sh"), "--build", BUILD, "--out", IMAGE,
                        "--keys", KEYS], capture_output=True, text=True)
if built.returncode != 0:
    print(built.stderr)
    check("scripts/build-image.sh", False, f"exited {built.returncode}")
    check.finish("uefi: ")
ENV = dict(line.split("=", 1) for line in open(os.path.join(IMAGE, "image.env")).read().splitlines() if "=" in line)
ROOTHASH = ENV["ROOTHASH"]
print(f"note: image built in {time.monotonic() - t0:.1f} s, root hash {ROOTHASH}", flush=True)
SIGNED = os.path.join(IMAGE, "uki.signed.efi")
verify = subprocess.run(["sbverify", "--cert", os.path.join(IMAGE, "secureboot-db.crt"), SIGNED], capture_output=True)
check("the signed UKI verifies against the image's db certificate", verify.returncode == 0, verify.stderr.decode())
pe = uki.Pe(uki.read(SIGNED))
osrel = next((pe.data[r:r + v] for n, v, _, _, r in pe.sections if n == ".osrel"), b"")
check("the UKI's os-release names the image dev-only (IMAGE_ID=volent-dev-only)", b"IMAGE_ID=volent-dev-only" in osrel,
      osrel.decode(errors="replace"))
provenance = open(os.path.join(KEYS, "PROVENANCE")).read().strip()
subjects = subprocess.run(["openssl", "x509", "-noout", "-subject", "-in", os.path.join(KEYS, "db.crt")],
                          capture_output=True, text=True).stdout
check("the keys say dev-only (PROVENANCE and the certificate's name)", provenance == "dev-only" and "dev-only" in subjects,
      f"{provenance!r} {subjects!r}")
POLICY = json.load(open(os.path.join(IMAGE, "policy-full-chain.json")))
check("the build predicted PCRs 4, 7, 9 and 11", sorted(POLICY.get("pcrs", {})) == ["11", "4", "7", "9"], str(POLICY))


# --- helpers --------------------------------------------------------------------------------------
def firmware_args(vars_copy):
    out = subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/image/uefi.sh"; uefi_machine_args "$1"', "-",
                          vars_copy], capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def make_esp(name, efi):
    path = os.path.join(WORK, f"esp-{name}.raw")
    subprocess.run(["bash", "-c", f'log() {{ :; }}; die() {{ echo "$2" >&2; exit 1; }}; '
                    f'source "{ROOT}/scripts/image/uefi.sh"; uefi_esp "$1" 64 "EFI/BOOT/BOOTX64.EFI=$2"', "-", path, efi],
                   check=True, env=dict(os.environ, SOURCE_DATE_EPOCH=ENV.get("SOURCE_DATE_EPOCH", "0")))
    return path


def firmware_tries(label, vars_file, esps, timeout=240):
    """Boots OVMF with the ESPs as disks in boot order and no root: returns the
    console once the firmware has given up ("No bootable option"), or at the
    timeout."""
    vars_copy = os.path.join(WORK, f"vars.{label}.fd")
    shutil.copy(vars_file, vars_copy)
    argv = ["timeout", "-k", "5", str(timeout), "qemu-system-x86_64"] + firmware_args(vars_copy) + \
        ["-accel", "tcg", "-cpu", "max", "-m", "256"]
    for i, esp in enumerate(esps):
        argv += ["-drive", f"id=e{i},file={esp},format=raw,if=none,snapshot=on",
                 "-device", f"ide-hd,drive=e{i},bus=ide.{i},bootindex={i + 1}"]
    console = os.path.join(WORK, f"console.{label}")
    with open(console, "wb") as out:
        proc = kill_at_exit(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                             start_new_session=True))
    deadline = time.monotonic() + timeout + 10
    text = ""
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
        text = open(console, "rb").read().decode(errors="replace")
        if "No bootable option" in text or "EFI stub" in text:
            break
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    return open(console, "rb").read().decode(errors="replace").replace("\r", "")


def refused_lines(text):
    return [line for line in text.splitlines() if "failed to load Boot" in line and "Access Denied" in line]


# --- 2. what the firmware refuses -------------------------------------------------------------------
unsigned = make_esp("unsigned", os.path.join(IMAGE, "uki.efi"))
foreign_key, foreign_crt = os.path.join(WORK, "foreign.key"), os.path.join(WORK, "foreign.crt")
subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "30", "-subj",
                "/CN=not in db", "-keyout", foreign_key, "-out", foreign_crt], check=True, capture_output=True)
foreign_uki = os.path.join(WORK, "uki.foreign.efi")
subprocess.run(["sbsign", "--key", foreign_key, "--cert", foreign_crt, "--output", foreign_uki,
                os.path.join(IMAGE, "uki.efi")], check=True, capture_output=True)
foreign = make_esp("foreign", foreign_uki)
altered_uki = os.path.join(WORK, "uki.altered.efi")
data = bytearray(pe.data)
cmdline_at = next(r for n, _, _, _, r in pe.sections if n == ".cmdline")
data[cmdline_at + 5] ^= 0x01  # one bit of the signed command line
open(altered_uki, "wb").write(data)
altered = make_esp("altered", altered_uki)

text = firmware_tries("refusals", os.path.join(IMAGE, "ovmf-vars-dev-only.fd"), [unsigned, foreign, altered])
refused = refused_lines(text)
check("OVMF with the image's keys refuses the unsigned, the foreign-signed and the altered UKI (Access Denied each)",
      len(refused) == 3 and "EFI stub" not in text, "\n    ".join(refused) or text[-1500:])
check("... and then has nothing to boot", "No bootable option" in text, text[-800:])

text = firmware_tries("microsoft", "/usr/share/OVMF/OVMF_VARS_4M.ms.fd", [os.path.join(IMAGE, "esp-full-chain.raw")])
check("OVMF with Microsoft's keys alone refuses the full-chain UKI (Access Denied)",
      len(refused_lines(text)) == 1 and "EFI stub" not in text, text[-1500:])


# --- 3. the boot --------------------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SEED = os.path.join(WORK, "seed")
TOKEN_FILE = os.path.join(WORK, "admin.token")
subprocess.run([VOLENT, "credential", "create", "--data-dir", SEED, "--name", "ops", "--role", "admin", "-o",
                TOKEN_FILE], check=True, capture_output=True)
TOKEN = open(TOKEN_FILE).read().strip()
def boot_and_report(profile):
    """Boots the image in `profile` and asks its node for a report: (report or None, console)."""
    report, console_text = None, ""
    for attempt in (1, 2):
        port = free_port()
        data_disk = os.path.join(WORK, f"data.{profile}.{attempt}.img")
        console = os.path.join(WORK, f"console.{profile}.{attempt}")
        argv = ["bash", os.path.join(ROOT, "scripts", "boot-image.sh"), "--image", IMAGE, "--profile", profile,
                "--api-port", str(port), "--data", data_disk, "--seed", SEED, "--timeout", "400"]
        with open(console, "wb") as out:
            vm = kill_at_exit(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                               start_new_session=True))
        t = time.monotonic()
        deadline = t + 360
        while time.monotonic() < deadline and vm.poll() is None:
            try:
                status, _, body = request("127.0.0.1", port, "GET", "/v1/attestation?nonce=00112233",
                                          headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)
                if status == 200:
                    report = json.loads(body)
                    break
            except OSError:
                pass
            time.sleep(1)
        took = time.monotonic() - t
        try:
            os.killpg(vm.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        vm.wait()
        console_text = open(console, "rb").read().decode(errors="replace").replace("\r", "")
        if report:
            print(f"note: {profile}: the node answered {took:.1f} s after QEMU started", flush=True)
            break
        print(f"note: {profile} boot {attempt} did not answer; console ends:\n    " +
              "\n    ".join(console_text.strip().splitlines()[-12:]), flush=True)
    return report, console_text


report, console_text = boot_and_report("full-chain")
if not check("the full-chain image boots to a node that answers (GET /v1/attestation)", report is not None,
             console_text[-1500:]):
    check.finish("uefi: ")
predicate = json.loads(base64.b64decode(report["payload"]))["predicate"]
boot = predicate.get("boot", {})
check("the report says full-chain with the image's root hash, Secure Boot enabled with dev-only keys, module "
      "loading off", boot.get("profile") == "full-chain" and boot.get("verity_roothash") == ROOTHASH
      and boot.get("secure_boot") == "enabled" and boot.get("secure_boot_keys") == "dev-only"
      and boot.get("modules_disabled") is True, json.dumps(boot))
check("the report carries the platform's event log", bool(predicate.get("tpm", {}).get("event_log")),
      str(predicate.get("tpm", {}).get("event_log_reason")))
check("the console says the keys are dev-only and that module loading is off",
      "volent-init: DEV-ONLY KEYS" in console_text and "module loading turned off" in console_text,
      "\n".join(console_text.splitlines()[-20:]))
REPORT = os.path.join(WORK, "report.json")
json.dump(report, open(REPORT, "w"))
SIGNER = predicate["key"]["public_key"]


def verify_with(policy, name, report_path=REPORT, signer=SIGNER):
    path = os.path.join(WORK, f"policy.{name}.json")
    json.dump(dict(policy, signers=[signer]), open(path, "w"))
    r = subprocess.run([VOLENT, "attest", "--verify", path, report_path, "--nonce", "00112233"], capture_output=True,
                       text=True)
    # stdout: a "claim NAME: why" line per failed claim, then the verdict.
    verdict = (r.stdout.strip().splitlines() or [""])[-1]
    return r.returncode, verdict, r.stdout + r.stderr


rc, verdict, out = verify_with(POLICY, "predicted")
check("the report VERIFIES against the policy the build predicted (PCRs 4, 7, 9, 11, profile, root hash)",
      rc == 0 and verdict == "VERIFIED" and all(f"pcrs.{n}" in out for n in (4, 7, 9, 11)), out)


# --- 4. what another build would predict ----------------------------------------------------------------
def predicted_for(label, change):
    """The policy a build would predict for a UKI whose sections `change` alters."""
    sections = {n: pe.data[r:r + v] for n, v, _, _, r in pe.sections}
    folder = os.path.join(WORK, f"other-{label}")
    os.makedirs(folder)
    paths = []
    for name in (".osrel", ".cmdline", ".linux", ".initrd"):
        p = os.path.join(folder, name[1:])
        open(p, "wb").write(change(name, sections[name]))
        paths.append(f"{name}={p}")
    other = os.path.join(folder, "uki.efi")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "image", "uki.py"), "build",
                    "/usr/lib/systemd/boot/efi/linuxx64.efi.stub", other] + paths, check=True)
    subprocess.run(["sbsign", "--key", os.path.join(KEYS, "db.key"), "--cert", os.path.join(KEYS, "db.crt"),
                    "--output", other + ".signed", other], check=True, capture_output=True)
    out = os.path.join(folder, "policy.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "image", "predict_pcrs.py"), "full-chain", "--uki",
                    other + ".signed", "--vars", os.path.join(IMAGE, "ovmf-vars-dev-only.fd"), "--roothash", ROOTHASH,
                    "-o", out], check=True)
    return json.load(open(out))


other_cmdline = predicted_for("cmdline", lambda n, b: b + b" quiet" if n == ".cmdline" else b)
rc, verdict, out = verify_with(other_cmdline, "cmdline")
check("against a build with another command line: FAILED naming pcrs.11, pcrs.9 and pcrs.4",
      rc != 0 and verdict == "FAILED" and all(f"pcrs.{n}:" in out for n in (4, 9, 11)), out)
other_initrd = predicted_for("initrd", lambda n, b: b[:100] + bytes([b[100] ^ 1]) + b[101:] if n == ".initrd" else b)
rc, verdict, out = verify_with(other_initrd, "initrd")
check("against a build with one initramfs byte changed: FAILED naming pcrs.11, pcrs.9 and pcrs.4",
      rc != 0 and verdict == "FAILED" and all(f"pcrs.{n}:" in out for n in (4, 9, 11)), out)
rc, verdict, out = verify_with(dict(POLICY, key_provenance="production"), "production")
check("against a policy requiring production keys: FAILED naming key.provenance (the node's key and the Secure "
      "Boot keys the quoted log shows are both dev-only)",
      rc != 0 and verdict == "FAILED" and "Secure Boot keys" in out and "key.provenance:" in out, out)
rc, verdict, out = verify_with(dict(POLICY, verity_roothash="0" * 64), "roothash")
check("against a policy naming another root hash: FAILED naming boot.verity_roothash",
      rc != 0 and verdict == "FAILED" and "boot.verity_roothash:" in out, out)

# --- 5. the shim chain under Microsoft's keys --------------------------------------------------------
shim_report, shim_console = boot_and_report("shim-chain")
if check("the shim-chain image boots under OVMF with Microsoft's keys (shim, GRUB, Debian's kernel) to a node "
         "that answers", shim_report is not None, shim_console[-1500:]):
    shim_predicate = json.loads(base64.b64decode(shim_report["payload"]))["predicate"]
    shim_boot = shim_predicate.get("boot", {})
    check("its report says shim-chain with the image's root hash, Secure Boot enabled with keys that are not "
          "dev-only (Microsoft's), module loading off",
          shim_boot.get("profile") == "shim-chain" and shim_boot.get("verity_roothash") == ROOTHASH
          and shim_boot.get("secure_boot") == "enabled" and shim_boot.get("secure_boot_keys") == "not-dev-only"
          and shim_boot.get("modules_disabled") is True, json.dumps(shim_boot))
    SHIM_REPORT = os.path.join(WORK, "report.shim.json")
    json.dump(shim_report, open(SHIM_REPORT, "w"))
    SHIM_POLICY = json.load(open(os.path.join(IMAGE, "policy-shim-chain.json")))
    rc, verdict, out = verify_with(SHIM_POLICY, "shim", SHIM_REPORT, shim_predicate["key"]["public_key"])
    check("it VERIFIES against the shim-chain policy the build predicted (PCRs 4, 8, 9)",
          rc == 0 and verdict == "VERIFIED" and all(f"pcrs.{n}" in out for n in (4, 8, 9)), out)
    cfg = open(os.path.join(IMAGE, "grub.cfg")).read().replace(" volent.data_blocks=", " quiet volent.data_blocks=")
    other_cfg = os.path.join(WORK, "grub.other.cfg")
    open(other_cfg, "w").write(cfg)
    loaders = subprocess.run(["bash", os.path.join(ROOT, "scripts", "image", "shim.sh")], capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
    kdir = kernel.stdout.strip().splitlines()[-1]
    other_policy = os.path.join(WORK, "policy.shim-other.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "image", "predict_pcrs.py"), "shim-chain",
                    "--shim", os.path.join(loaders, "shimx64.efi"), "--grub", os.path.join(loaders, "grubx64.efi"),
                    "--kernel", os.path.join(kdir, "vmlinuz"), "--grub-cfg", other_cfg, "--initrd",
                    os.path.join(IMAGE, "initrd"), "--roothash", ROOTHASH, "-o", other_policy], check=True)
    rc, verdict, out = verify_with(json.load(open(other_policy)), "shim-other", SHIM_REPORT,
                                   shim_predicate["key"]["public_key"])
    check("against a GRUB configuration with another command line: FAILED naming pcrs.8 and pcrs.9",
          rc != 0 and verdict == "FAILED" and "pcrs.8:" in out and "pcrs.9:" in out, out)

check.finish("uefi: ", f" ({time.monotonic() - t0:.0f} s)")
