#!/usr/bin/env python3
"""The sealed image's boot time under QEMU's microvm (bench/boot.sh).

    boot.py IMAGE_DIR BARE_INIT RUNS [FLOOR_ESP|-]

Interleaves RUNS boots of each of:
  bare      Debian's kernel and an initramfs holding only volent-init, which
            says its heartbeat and powers off (scripts/image/boot.sh): the
            floor, what the kernel alone costs on this machine
  image     the sealed image up to its heartbeat (scripts/boot-image.sh
            --test heartbeat): modules, dm-verity over every block of the
            root, the root and /data mounted, the network up
  node      the sealed image booted for real, until its node answers
            /healthz on the forwarded port (wall time only: the guest's
            clock is not visible from the host there)
and, with FLOOR_ESP (made by scripts/image/uefi.sh's uefi_floor_esp):
  uefi-floor  OVMF (Secure Boot, the image's keys, a TPM) booting a signed UKI
            of the kernel and volent-init alone, which powers off at its
            heartbeat: what the firmware and the kernel cost
  full-chain  the image under OVMF (scripts/boot-image.sh --profile
            full-chain) until its node answers /healthz
  shim-chain  the same through Microsoft's keys, shim and GRUB
For each: the guest's CLOCK_BOOTTIME at the heartbeat (what volent-init
prints) and the wall time from QEMU's start to its exit (or to the first
/healthz answer); the median, the spread (max - min) / median (over 10%: not
yet trustworthy on this machine, and said so) and the ratio to bare.
"""
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HEARTBEAT = re.compile(r"^volent-init: heartbeat (\d+\.\d+)\s*$", re.M)
BARE = re.compile(r"heartbeat at (\d+\.\d+)s guest time, (\d+\.\d+)s wall")  # scripts/image/boot.sh --quiet
SPREAD_LIMIT = 0.10


def boot(argv, tmp):
    """(heartbeat guest seconds or None, wall seconds, console)."""
    t0 = time.monotonic()
    out = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t0
    console = out.stdout.decode(errors="replace").replace("\r", "")
    m = HEARTBEAT.search(console)
    return (float(m.group(1)) if m else None), wall, console


def boot_uefi_floor(image, esp, tmp):
    tpm = tempfile.mkdtemp(dir=tmp)
    os.rmdir(tpm)  # boot_uefi makes it with swtpm_setup
    script = (f'log() {{ :; }}; die() {{ echo "$2" >&2; exit "$1"; }}; QEMU=qemu-system-x86_64; '
              f'source "{ROOT}/scripts/image/uefi.sh"; '
              f'boot_uefi "$1" "$2" "$3" - - tcg 512 120 0')
    return boot(["bash", "-c", script, "-", esp, os.path.join(image, "ovmf-vars-dev-only.fd"), tpm], tmp)


# Console lines whose first appearance (host time since QEMU started) says
# where a boot's time went: the kernel's first word, the modules, the root's
# verity read, the node's start.
MARKS = (("kernel", re.compile(r"EFI stub: |Linux version|volent-init: ")),
         ("modules", re.compile(r"volent-init: module loading turned off")),
         ("verity", re.compile(r"volent-init: root /dev/\S+ verified")),
         ("node", re.compile(r"volent node: listening")))


def boot_node(image, data, *extra):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    console = tempfile.TemporaryFile()
    t0 = time.monotonic()
    proc = subprocess.Popen(["bash", os.path.join(ROOT, "scripts", "boot-image.sh"), "--image", image, "--data", data,
                             "--api-port", str(port), "--timeout", "120", *extra], stdin=subprocess.DEVNULL, stdout=console,
                            stderr=subprocess.STDOUT, start_new_session=True)
    wall = None
    marks = {}
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        console.seek(0)
        seen = console.read().decode(errors="replace")
        for name, pattern in MARKS:
            if name not in marks and pattern.search(seen):
                marks[name] = time.monotonic() - t0
        try:
            # Short: QEMU's port forward accepts before the guest listens, and
            # a long wait here would blur when each console line came.
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=0.5) as r:
                if r.status == 200:
                    wall = time.monotonic() - t0
                    break
        except urllib.error.HTTPError as e:
            if e.code == 401:  # the node answers; it wants a token (docs/control-api.md)
                wall = time.monotonic() - t0
                break
        except OSError:
            time.sleep(0.05)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:  # it ended by itself (a failed boot: the console says why)
        pass
    proc.wait()
    console.seek(0)
    text = console.read().decode(errors="replace").replace("\r", "")
    # A line that reached the console after the answer: at the answer.
    for name, pattern in MARKS:
        if name not in marks and wall is not None and pattern.search(text):
            marks[name] = wall
    m = HEARTBEAT.search(text)
    return (float(m.group(1)) if m else None), wall, text, marks


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    median = statistics.median(values)
    return median, (max(values) - min(values)) / median if median else 0.0


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__.split("\n\n")[1])
    image, bare_init, runs = argv[1], argv[2], int(argv[3])
    floor = argv[4] if len(argv) == 5 and argv[4] != "-" else None
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "data.img")
    uefi_data = os.path.join(tmp, "uefi-data.img")
    names = ("bare", "image", "node") + (("uefi-floor", "full-chain", "shim-chain") if floor else ())
    results = {name: ([], []) for name in names}
    phases = {name: [] for name in names}
    for n in range(1, runs + 1):
        for name in names:
            if name == "bare":
                _, _, console = boot(["bash", os.path.join(ROOT, "scripts", "image", "boot.sh"), "--init",
                                      bare_init, "--quiet"], tmp)
                m = BARE.search(console)  # its own figures: QEMU alone, without the script's set-up
                beat, wall = (float(m.group(1)), float(m.group(2))) if m else (None, None)
            elif name == "image":
                beat, wall, console = boot(["bash", os.path.join(ROOT, "scripts", "boot-image.sh"), "--image", image,
                                            "--data", data, "--test", "heartbeat"], tmp)
            elif name == "uefi-floor":
                beat, wall, console = boot_uefi_floor(image, floor, tmp)
            elif name in ("full-chain", "shim-chain"):
                beat, wall, console, marks = boot_node(image, uefi_data, "--profile", name)
                phases[name].append(marks)
            else:
                beat, wall, console, marks = boot_node(image, data)
                phases[name].append(marks)
            if beat is None or wall is None:
                print(f"boot: run {n} {name}: no heartbeat or no answer; console tail:\n" +
                      "\n".join(console.strip().splitlines()[-8:]), file=sys.stderr)
            results[name][0].append(beat)
            results[name][1].append(wall)
            print(f"boot: run {n}/{runs} {name:5}: heartbeat "
                  f"{'-' if beat is None else f'{beat:.3f} s'} guest, "
                  f"{'-' if wall is None else f'{wall:.2f} s'} wall", file=sys.stderr, flush=True)
    print(f"\nboot under QEMU (microvm; q35 and OVMF for the UEFI rows), {runs} runs each, interleaved "
          "(median, spread = (max - min) / median)")
    print(f"{'':12}{'heartbeat (guest)':>20}  {'wall':<28}{'vs floor (guest, wall)':>24}")
    untrusted = []
    for name in names:
        beat, beat_spread = summary(results[name][0])
        wall, wall_spread = summary(results[name][1])
        floor_name = "uefi-floor" if name in ("uefi-floor", "full-chain", "shim-chain") else "bare"
        floor_beat, _ = summary(results[floor_name][0])
        floor_wall, _ = summary(results[floor_name][1])
        what = "to /healthz" if name in ("node", "full-chain", "shim-chain") else "to exit"
        cell = lambda v, s: "-" if v is None else f"{v:.3f} s ±{100 * s:.0f}%"
        ratio = (f"{beat / floor_beat:.2f}x" if beat and floor_beat else "-") + ", " + \
            (f"{wall / floor_wall:.2f}x" if wall and floor_wall else "-")
        print(f"{name:12}{cell(beat, beat_spread):>20}  {cell(wall, wall_spread) + ' ' + what:<28}{ratio:>24}")
        for label, s in (("heartbeat", beat_spread), ("wall", wall_spread)):
            if s is not None and s > SPREAD_LIMIT:
                untrusted.append(f"{name} {label}")
    print("\nwhere the time goes (host seconds after QEMU started, median: the console's first line of each step)")
    print(f"{'':12}{'kernel':>10}{'modules':>10}{'verity':>10}{'node':>10}{'answer':>10}")
    for name in names:
        if not phases[name]:
            continue
        cells = []
        for mark in ("kernel", "modules", "verity", "node"):
            v, _ = summary([p.get(mark) for p in phases[name]])
            cells.append("-" if v is None else f"{v:.2f}")
        w, _ = summary(results[name][1])
        cells.append("-" if w is None else f"{w:.2f}")
        print(f"{name:12}" + "".join(f"{c:>10}" for c in cells))
    print("(kernel: the firmware, and for the UEFI profiles the loaders, before it; verity: the read of every "
          "root block; node: the node's start until it listens)")
    if untrusted:
        print(f"note: spread over {100 * SPREAD_LIMIT:.0f}% ({', '.join(untrusted)}): not yet trustworthy on this "
              "machine (other work running; TCG makes the guest's speed the host's)")
    exits = [name for name in names if name in ("bare", "image", "uefi-floor")]
    complete = all(v is not None for name in exits for v in results[name][0] + results[name][1])
    answered = all(v is not None for name in names if name not in exits for v in results[name][1])
    return 0 if complete and answered else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
