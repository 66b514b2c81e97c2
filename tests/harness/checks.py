"""Counting checks and printing them the way the script tests always have."""
import sys


def skip(reason):
    """Ends the test as skipped: CTest reads `skipped: REASON` (SKIP_REGULAR_EXPRESSION)."""
    print(f"skipped: {reason}", flush=True)
    sys.exit(0)


def fail(message, details=()):
    """Ends the test at once when it cannot go on (a server that never listened)."""
    print(f"FAIL: {message}", flush=True)
    for line in details:
        print(f"  {line}", flush=True)
    sys.exit(1)


class Checks:
    """One `ok ...`/`FAIL ...` line per check, then one summary line.

    numbered=True prints `ok 7: name` (a running number), False prints `ok: name`.
    """

    def __init__(self, numbered=True):
        self.numbered = numbered
        self.passed = 0
        self.failed = 0
        self.failures = []

    def __call__(self, name, cond, detail=""):
        """Records one check; returns `cond` so a caller can go on only when it held."""
        if cond:
            self.passed += 1
        else:
            self.failed += 1
        number = f" {self.passed + self.failed}" if self.numbered else ""
        word = "ok" if cond else "FAIL"
        line = f"{word}{number}: {name}" + (f": {detail}" if detail and not cond else "")
        print(line, flush=True)
        if not cond:
            self.failures.append(line)
        return cond

    @staticmethod
    def note(text):
        print(f"note: {text}", flush=True)

    def finish(self, prefix="", suffix=""):
        """Prints `PREFIX N passed, N failed SUFFIX` and exits 1 if any check failed.

        The failed checks are printed again just before: a long output that
        a CI log shortens in the middle still ends with them."""
        for line in self.failures[:20]:
            print(f"again: {line[:2000]}", flush=True)
        print(f"{prefix}{self.passed} passed, {self.failed} failed{suffix}", flush=True)
        sys.exit(1 if self.failed else 0)
