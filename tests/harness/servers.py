"""Starting a server that prints where it listens, and stopping it.

The servers under test bind port 0 and print one line on stderr such as
`volent node: listening on http://127.0.0.1:PORT`; the test reads the port
from that line. The patterns below name the host and port groups.
"""
import os
import re
import signal
import subprocess
import time

from . import cleanup, http_client
from .checks import fail

VOLENT_NODE = re.compile(r"^volent node: listening on http://(?P<host>[^:/\s]+):(?P<port>\d+)$", re.M)
VOLENT_MOCK_MODEL = re.compile(r"^volent mock-model: listening on http://(?P<host>[^:/\s]+):(?P<port>\d+)$", re.M)
AMPOULE_MCP = re.compile(r"^ampoule mcp: listening on http://(?P<host>127\.0\.0\.1):(?P<port>\d+)/mcp$", re.M)


BOOTSTRAP_TOKEN_FILE = "bootstrap-admin.token"


def adopt_node_token(argv, port):
    """A `volent node` with --data-dir: its bootstrap admin token (written at
    its first start), registered for `port` so the harness's requests are
    authenticated; None without one (development mode, no data folder)."""
    if "--data-dir" not in argv:
        return None
    path = os.path.join(argv[argv.index("--data-dir") + 1], BOOTSTRAP_TOKEN_FILE)
    try:
        with open(path, encoding="ascii") as f:
            token = f.read().strip()
    except OSError:
        return None
    http_client.register_token(port, token)
    return token


class NotListening(Exception):
    """The server ended, or did not print its listening line in time."""


def how_ended(returncode):
    """`exit status N`, `SIGKILL (signal 9)` or `still running`, for messages."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"{signal.Signals(-returncode).name} (signal {-returncode})"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


class Server:
    """`argv` started with stdout and stderr in `stderr_path`, killed at exit.

    Waits up to `timeout` seconds for `listening` (one of the patterns above)
    on stderr and sets host and port. If the process ends first, raises
    NotListening, or returns with port None when `may_die_early` (the
    caller judges: a node killed at a crash point while starting).
    `limits`, if given, runs in the child before exec (resource limits).
    """

    def __init__(self, argv, stderr_path, listening, timeout=30, env=None, limits=None,
                 may_die_early=False, stdout_too=True):
        self.argv = argv
        self.stderr_path = stderr_path
        self.host, self.port, self.token = None, None, None

        def before_exec():
            cleanup.die_with_parent()
            if limits:
                limits()

        with open(stderr_path, "wb") as err:
            self.proc = cleanup.kill_at_exit(subprocess.Popen(
                argv, env=env, stdin=subprocess.DEVNULL, stdout=err if stdout_too else subprocess.DEVNULL,
                stderr=err, preexec_fn=before_exec))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = listening.search(self.stderr())
            if m:
                self.host, self.port = m.group("host"), int(m.group("port"))
                self.token = adopt_node_token(argv, self.port) if listening is VOLENT_NODE else None
                return
            if self.proc.poll() is not None:
                if may_die_early:
                    return
                break
            time.sleep(0.02)
        raise NotListening(f"{os.path.basename(argv[0])} {argv[1]} did not print its listening line "
                           f"({how_ended(self.proc.poll())}): {self.tail()}")

    def stderr(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def tail(self, lines=8):
        last = self.stderr().splitlines()[-lines:]
        return " | ".join(last) if last else "(no stderr)"

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Sends `sig` (if still running), waits up to `timeout` s, then
        SIGKILL; the exit status (negative: the signal that ended it)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        cleanup.forget(self.proc)
        return self.proc.returncode


def start_server(*args, **kwargs):
    """A Server (same arguments), or the test ends with `FAIL: ...` when it
    does not listen: nothing after it could be checked."""
    try:
        return Server(*args, **kwargs)
    except NotListening as e:
        fail(str(e))
