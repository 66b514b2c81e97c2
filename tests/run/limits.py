#!/usr/bin/env python3
"""Limits of `ampoule run` (tests/run/limits.sh is the entry point; docs/testing-runs.md).

Each case runs one program from tests/run/guests through `ampoule run` and
checks its exit status, its run record (--record) and its output:

  fuel         an endless loop stops on fuel: status 127, stop "fuel"; the same
               again gives the same record
  memory       a memory hog stops on the memory cap: status 121, stop "memory"
  safety net   an endless loop with a huge --fuel and a short --timeout:
               status 124, terminated true, stop "timeout"
  socket       opening a socket fails inside the guest: a Python exception, status 1
  unavailable  threads, processes, sockets, ssl, ctypes and multiprocessing each
               fail at once with the usual exception type and a message saying why;
               asyncio.run returns after a failed run_in_executor
  outside      reading outside /input fails inside the guest: status 1
  cwd          a program writes out.txt where it starts (/, writable); writing to
               /usr/local is EROFS, an escape and an absolute link EPERM, never 76
  flood        20 MiB of stdout: capped at the output cap, truncated true, status 0
  exit 3       the guest's own status: 3
  exit 200     a status of 120 or more: 120, exit_code 200 in the record
  js fuel      an endless JavaScript loop stops on fuel
  js recursion deep recursion is the guest's own catchable error

With the wasm backend (`ampoule wasm run`, before `ampoule run` exists) only
the cases that do not need a record or the jail run, with its exit codes.

Prints `ok`/`FAIL` per case and `limits: N passed, M failed`; exit status 1
on a failure; `skipped: REASON` (exit 0) when guests cannot run here.
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

GUESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guests")
MIB = 1 << 20
RECORD_KEYS = ("kernel", "runtime", "program", "inputs", "stdin", "seed", "limits", "result", "stdout", "stderr")


def field(record, path):
    value = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(path)
        value = value[part]
    return value


class Case:
    """One limit case: a program, its options, and what must come out."""

    def __init__(self, name, program, args=(), status=None, record=None, stdout_re=None, stderr_re=None,
                 wasm_status=None, wasm_args=None, check=None, timeout=300):
        self.name, self.program, self.args = name, os.path.join(GUESTS, program), list(args)
        self.status, self.record = status, record or {}
        self.stdout_re, self.stderr_re = stdout_re, stderr_re
        self.wasm_status, self.wasm_args = wasm_status, wasm_args
        self.check, self.timeout = check, timeout


def flood_output(result, backend):
    """The passed-through stdout is the capped stdout."""
    if backend.name == "run" and result.record and len(result.stdout) != result.record["stdout"]["bytes"]:
        return f"printed {len(result.stdout)} bytes, record says {result.record['stdout']['bytes']}"
    return None


def same_again(case, result, backend):
    """A fuel stop is replayable: the same run gives the same record."""
    again = backend.run(case.program, extra=case.args)
    if again.stdout != result.stdout or again.status != result.status or again.fuel != result.fuel:
        return f"second run differs: status {again.status}, fuel {again.fuel} (first {result.status}, {result.fuel})"
    if result.record and again.record:
        a = {k: v for k, v in result.record.items() if k not in ("started_at", "finished_at")}
        b = {k: v for k, v in again.record.items() if k not in ("started_at", "finished_at")}
        if a != b:
            return "second run's record differs in " + ", ".join(sorted(k for k in a if a[k] != b.get(k)))
    return None


CASES = [
    Case("fuel", "spin.py", ["--fuel", "200000000"], status=127,
         record={"result.stop": "fuel", "result.terminated": False, "limits.fuel": 200000000,
                 "result.fuel_used": lambda v: 0 < v <= 200000000 or f"fuel_used {v} outside (0, 200000000]"},
         wasm_status=127, check=same_again),
    Case("memory", "memory_hog.py", ["--memory", str(64 * MIB)], status=121,
         record={"result.stop": "memory", "result.memory_cap_hit": True, "limits.memory_bytes": 64 * MIB,
                 "result.terminated": False},
         stdout_re=r"allocated 4 MiB\n", wasm_args=["--memory", "64M"]),
    Case("safety net", "spin.py", ["--fuel", str(10 ** 18), "--timeout", "2"], status=124,
         record={"result.stop": "timeout", "result.terminated": True, "limits.timeout_seconds": 2},
         timeout=120),
    Case("socket", "socket_open.py", [], status=1,
         record={"result.stop": "exit", "result.exit_code": 1, "result.terminated": False},
         stdout_re=r"^resolving a name\ncreate_connection: gaierror\nopening a socket\n$",
         stderr_re=r"(?m)^OSError: .*$", wasm_status=1),
    Case("unavailable", "wasi_unavailable.py", [], status=0, record={"result.stop": "exit"},
         stdout_re=r"^thread: RuntimeError: can't start new thread: threads are not available in Ampoule's "
                   r"WebAssembly sandbox \(WASI preview 1\)\n"
                   r"subprocess: OSError: \[Errno 58\] wasi does not support processes\.\n"
                   r"socket: OSError: \[Errno 58\] sockets are not available in .*: the guest has no network\n"
                   r"ssl: ModuleNotFoundError: No module named '_ssl': TLS \(the ssl module\) is not available "
                   r"in .*: the guest has no network\n"
                   r"ctypes: ModuleNotFoundError: No module named 'ctypes': ctypes is not available in .*: "
                   r"WebAssembly cannot load or call native code\n"
                   r"multiprocessing: ModuleNotFoundError: No module named '_multiprocessing': multiprocessing "
                   r"is not available in .*: there are no processes\n"
                   r"run_in_executor: caught, and asyncio.run returned\n$",
         wasm_status=0),
    Case("outside", "read_outside.py", [], status=1,
         record={"result.stop": "exit", "result.exit_code": 1},
         stdout_re=r"^/input/\.\./etc/passwd (FileNotFoundError|PermissionError)\n"
                   r"/input/\.\./\.\./etc/passwd (FileNotFoundError|PermissionError)\n"
                   r"/proc/self/environ (FileNotFoundError|PermissionError)\n",
         stderr_re=r"(?m)^(FileNotFoundError|PermissionError): .*/etc/passwd'$", wasm_status=1),
    Case("cwd", "write_cwd.py", [], status=0, record={"result.stop": "exit", "result.exit_code": 0},
         stdout_re=r"^cwd / written where it stands True\n"
                   r"hard link 2 a\n"
                   r"read-only OSError EROFS\n"
                   r"escape PermissionError EPERM\n"
                   r"absolute link PermissionError EPERM\n"
                   r"missing FileNotFoundError ENOENT\n$"),  # ampoule wasm run mounts /usr/local writable
    Case("flood", "flood.py", [], status=0,
         record={"result.stop": "exit", "stdout.truncated": True, "stdout.total_bytes": 20 * MIB,
                 "stdout.bytes": lambda v, r: v == r["limits"]["output_cap_bytes"] or
                 f"stdout.bytes {v} is not the cap {r['limits']['output_cap_bytes']}",
                 "stderr.truncated": False},
         stderr_re=r"flood done\n", wasm_status=0, check=flood_output),
    Case("exit 3", "exit_three.py", [], status=3,
         record={"result.stop": "exit", "result.exit_code": 3, "result.status": 3},
         stdout_re=r"^exiting with 3\n$", wasm_status=3),
    Case("exit 200", "exit_high.py", [], status=120,
         record={"result.stop": "exit", "result.exit_code": 200, "result.status": 120}, wasm_status=124),
    Case("js fuel", "spin.js", ["--fuel", "100000000"], status=127,
         record={"result.stop": "fuel", "runtime": "js"}, wasm_status=127),
    Case("js recursion", "recursion.js", [], status=0, record={"result.stop": "exit"},
         stdout_re=r"^caught RangeError Maximum call stack size exceeded\n"
                   r"JSON.parse: (RangeError Maximum call stack size exceeded|SyntaxError stack overflow)\n"
                   r"still running\n$",
         wasm_status=0),
]


def check_case(case, backend):
    """Returns (problem or None, note)."""
    if backend.name == "wasm":
        if case.wasm_status is None and case.wasm_args is None:
            return None, "skipped: needs ampoule run"
        args = case.wasm_args if case.wasm_args is not None else case.args
        result = backend.run(case.program, extra=args, timeout=case.timeout)
        want = case.wasm_status
    else:
        result = backend.run(case.program, extra=case.args, timeout=case.timeout)
        want = case.status
    err_tail = (result.stderr.decode(errors="replace").strip().splitlines() or ["(no stderr)"])[-1][:150]
    if want is not None and result.status != want:
        return f"exit status {result.status}, wanted {want} ({err_tail})", ""
    if backend.name == "run":
        if result.record is None:
            return "no record written", ""
        missing = [k for k in RECORD_KEYS if k not in result.record]
        if missing:
            return f"record lacks {', '.join(missing)}", ""
        for path, expected in case.record.items():
            try:
                value = field(result.record, path)
            except KeyError:
                return f"record has no {path}", ""
            if callable(expected):
                verdict = expected(value, result.record) if expected.__code__.co_argcount == 2 else expected(value)
                if verdict is not True:
                    return str(verdict), ""
            elif value != expected:
                return f"record {path} is {value!r}, wanted {expected!r}", ""
    stdout = result.stdout.decode(errors="replace")
    if case.stdout_re and not re.search(case.stdout_re, stdout):
        return f"stdout {stdout[:120]!r} does not match {case.stdout_re!r}", ""
    if case.stderr_re and not re.search(case.stderr_re, result.stderr.decode(errors="replace")):
        return f"stderr does not match {case.stderr_re!r}: {err_tail!r}", ""
    if case.check:
        problem = case.check(case, result, backend) if case.check.__code__.co_argcount == 3 \
            else case.check(result, backend)
        if problem:
            return problem, ""
    stop = result.record["result"]["stop"] if result.record else "-"
    return None, f" (status {result.status}, stop {stop}, fuel {result.fuel})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    guest.add_backend_arguments(ap)
    ap.add_argument("only", nargs="*", help="only these cases (names as printed)")
    opts = ap.parse_args()
    backend = guest.open_backend(opts)
    if backend is None:
        return 0
    passed = failed = 0
    for case in CASES:
        if opts.only and case.name not in opts.only:
            continue
        problem, note = check_case(case, backend)
        if problem:
            failed += 1
            print(f"FAIL {case.name}: {problem}", flush=True)
        elif note.startswith("skipped"):
            print(f"skip {case.name}: {note[len('skipped: '):]}", flush=True)
        else:
            passed += 1
            print(f"ok   {case.name}{note}", flush=True)
    print(f"limits: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
