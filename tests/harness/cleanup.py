"""Nothing a test starts or creates outlives it.

Every child process registered here is killed when the test exits (normally,
by an exception, or by SIGTERM/SIGINT/SIGHUP), and dies with the test if the
test itself is killed (PR_SET_PDEATHSIG), so a CI timeout leaves no server
behind. Work folders are removed after the processes that write in them stop.
"""
import atexit
import ctypes
import shutil
import signal
import sys
import tempfile

_processes = []
_folders = []
_installed = False
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def die_with_parent():
    """For preexec_fn: between fork and exec, ask for SIGKILL when the test dies."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _at_exit():
    for proc in list(_processes):
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)


def _install():
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(_at_exit)
    # sys.exit runs the atexit handlers; the default action of these signals would not.
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda signum, frame: sys.exit(128 + signum))


def kill_at_exit(proc):
    _install()
    _processes.append(proc)
    return proc


def forget(proc):
    """For a process the test has stopped itself."""
    if proc in _processes:
        _processes.remove(proc)


def work_folder(prefix, keep=False):
    """A new folder under the temporary directory, removed at exit unless `keep`."""
    _install()
    folder = tempfile.mkdtemp(prefix=prefix)
    if not keep:
        _folders.append(folder)
    return folder
