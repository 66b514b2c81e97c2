"""The programs a test needs: found, or the test is skipped."""
import os
import subprocess

from .checks import skip


def skip_unless_runs(binary, *commands, hint=""):
    """Skips the test unless `binary` is an executable that has each of
    `commands` (`BINARY COMMAND --help` succeeds). `hint` says how to get it."""
    name = os.path.basename(binary)
    if not os.access(binary, os.X_OK):
        skip(f"{name} binary '{binary}' not found" + (f" ({hint})" if hint else ""))
    for command in commands:
        if subprocess.run([binary, command, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            skip(f"this {name} has no {command} command")


def kernel_or_skip(ampoule, kernel=""):
    """`kernel` if given (else $AMPOULE_KERNEL, else what `ampoule kernel
    path` names), or the test is skipped when there is no such file."""
    kernel = kernel or os.environ.get("AMPOULE_KERNEL", "")
    if not kernel:
        kernel = subprocess.run([ampoule, "kernel", "path"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True).stdout.strip()
    if not kernel or not os.path.isfile(kernel):
        skip("no kernel file; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL")
    return kernel
