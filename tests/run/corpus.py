#!/usr/bin/env python3
"""The guest corpus check (tests/run/corpus.sh is the entry point; docs/testing-runs.md).

Every Python program in tests/corpus/python runs through ampoule and through
Debian's native /usr/bin/python3.11 with the same inputs; stdout must be
byte-identical, the exit status equal and the last line of stderr equal
(tracebacks name different paths, their last line does not). Every
JavaScript program in tests/corpus/js must print exactly its `.expected`
file and exit with the status in its `.exit` file (0 without one); a
`.stderr` file holds text its stderr must contain, once.

Determinism: each program runs twice through ampoule; stdout, stderr, status
and fuel must be identical (with `ampoule run`, the whole record but its
times). Seed: tests/run/guests/seed_random.py runs with two seeds; its stdout
must differ and nothing else (with `ampoule run`: the records differ only in
seed and stdout digest).

Prints one line per program (`ok` or `FAIL` and why) and
`corpus: N passed, M failed`; exit status 1 on any failure, 0 otherwise.
When nothing can run (no ampoule binary, no kernel, no runtimes) it prints
`skipped: REASON` and exits 0, which ctest reports as skipped.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

NATIVE_PYTHON = "/usr/bin/python3.11"
# The guest's fixed environment (docs/runtimes.md); the native run gets the same.
NATIVE_ENV = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
RECORD_TIME_FIELDS = ("started_at", "finished_at")


def last_line(data):
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def first_difference(a, b):
    """Describes where two outputs first differ, by line."""
    la, lb = a.decode("utf-8", "replace").split("\n"), b.decode("utf-8", "replace").split("\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: expected {x[:100]!r}, got {y[:100]!r}"
    return f"expected {len(la)} lines, got {len(lb)}"


def run_native(program, input_dir, stdin):
    """Runs a Python program natively: isolated from the caller's environment,
    in an empty working folder, the script's folder kept off sys.path (-P),
    the input folder passed as AMPOULE_INPUT_DIR (the guest reads /input)."""
    with tempfile.TemporaryDirectory(prefix="ampoule-native-") as cwd:
        env = dict(NATIVE_ENV, AMPOULE_INPUT_DIR=input_dir or os.path.join(cwd, "no-input"))
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as stdin_file:
            proc = subprocess.run([NATIVE_PYTHON, "-P", "-s", program], cwd=cwd, env=env, stdin=stdin_file,
                                  capture_output=True, timeout=guest.RUN_TIMEOUT)
    return guest.Result(proc.stdout, proc.stderr, proc.returncode, None)


def record_without(record, fields):
    """A copy of a record without the named dotted fields."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in record.items()}
    for f in fields:
        parts = f.split(".")
        target = out
        for p in parts[:-1]:
            target = target.get(p, {})
        target.pop(parts[-1], None)
    return out


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest(), os.path.getsize(path)


def record_problem(result, program, inputs, stdin):
    """None when a run record describes the run it came from; else what is off."""
    r = result.record
    want_program = sha256_file(program)
    if (r["program"]["sha256"], r["program"]["bytes"]) != want_program:
        return "record.program digest is not the program's"
    want_inputs = [{"name": n, "sha256": sha256_file(p)[0], "bytes": sha256_file(p)[1]} for n, p in inputs]
    if [{k: i.get(k) for k in ("name", "sha256", "bytes")} for i in r["inputs"]] != want_inputs:
        return "record.inputs are not the inputs given (names, digests, sorted by name)"
    want_stdin = sha256_file(stdin) if stdin else (hashlib.sha256(b"").hexdigest(), 0)
    if (r["stdin"]["sha256"], r["stdin"]["bytes"]) != want_stdin:
        return "record.stdin digest is not the stdin given"
    for stream, data in (("stdout", result.stdout), ("stderr", result.stderr)):
        if (r[stream]["sha256"], r[stream]["bytes"]) != (hashlib.sha256(data).hexdigest(), len(data)):
            return f"record.{stream} digest is not that of the {stream} printed"
    written = {o["name"]: (o["sha256"], o["bytes"]) for o in r.get("outputs", [])}
    if written != result.output_files:
        return f"record.outputs {sorted(written)} are not the files --outputs wrote {sorted(result.output_files)}"
    if r["result"]["status"] != result.status:
        return f"record.result.status {r['result']['status']}, but ampoule run exited {result.status}"
    if r["runtime"] != guest.runtime_for(program):
        return f"record.runtime {r['runtime']!r} for {os.path.basename(program)}"
    return None


def same_runs(a, b):
    """None when two runs of one program agree in everything deterministic; else why not."""
    if a.stdout != b.stdout:
        return "stdout differs between two runs: " + first_difference(a.stdout, b.stdout)
    if a.stderr != b.stderr:
        return "stderr differs between two runs: " + first_difference(a.stderr, b.stderr)
    if a.status != b.status:
        return f"status differs between two runs: {a.status} vs {b.status}"
    if a.fuel != b.fuel:
        return f"fuel differs between two runs: {a.fuel} vs {b.fuel}"
    if a.record is not None and b.record is not None:
        ra, rb = record_without(a.record, RECORD_TIME_FIELDS), record_without(b.record, RECORD_TIME_FIELDS)
        if ra != rb:
            keys = sorted(k for k in set(ra) | set(rb) if ra.get(k) != rb.get(k))
            return f"records differ between two runs in {', '.join(keys)}"
    return None


class Checker:
    def __init__(self, backend, determinism):
        self.backend, self.determinism = backend, determinism
        self.passed, self.failed = 0, 0

    def report(self, name, problem, note=""):
        if problem:
            self.failed += 1
            print(f"FAIL {name}: {problem}", flush=True)
        else:
            self.passed += 1
            print(f"ok   {name}{note}", flush=True)

    def guest_twice(self, program, inputs, stdin):
        """Runs the program through ampoule (twice when checking determinism);
        returns (result, problem)."""
        first = self.backend.run(program, inputs, stdin)
        if first.fuel is None:
            why = "no record" if self.backend.name == "run" else "no --stats line"
            return first, f"{why} (exit {first.status}: {last_line(first.stderr)[:120]})"
        if first.record is not None:
            problem = record_problem(first, program, inputs, stdin)
            if problem:
                return first, problem
        if self.determinism:
            problem = same_runs(first, self.backend.run(program, inputs, stdin))
            if problem:
                return first, problem
        return first, None

    def python(self, corpus, name):
        program = os.path.join(corpus, name)
        stem = name[:-3]
        input_dir = os.path.join(corpus, "input", stem)
        input_dir = input_dir if os.path.isdir(input_dir) else None
        stdin = os.path.join(corpus, stem + ".stdin")
        stdin = stdin if os.path.isfile(stdin) else None
        native = run_native(program, input_dir, stdin)
        got, problem = self.guest_twice(program, guest.input_files(input_dir), stdin)
        if not problem:
            if got.stdout != native.stdout:
                problem = "stdout differs from native: " + first_difference(native.stdout, got.stdout)
            elif got.status != native.status:
                problem = f"exit status {got.status}, native {native.status} ({last_line(got.stderr)[:120]})"
            elif last_line(got.stderr) != last_line(native.stderr):
                problem = (f"last stderr line {last_line(got.stderr)[:100]!r}, "
                           f"native {last_line(native.stderr)[:100]!r}")
        self.report(f"python/{name}", problem, f" (exit {got.status}, fuel {got.fuel})")

    def js(self, corpus, name):
        program = os.path.join(corpus, name)
        stem = os.path.splitext(program)[0]
        with open(stem + ".expected", "rb") as f:
            expected = f.read()
        status = 0
        if os.path.isfile(stem + ".exit"):
            with open(stem + ".exit") as f:
                status = int(f.read().strip())
        input_dir = os.path.join(corpus, "input", os.path.basename(stem))
        got, problem = self.guest_twice(program, guest.input_files(input_dir), None)
        if not problem:
            if got.stdout != expected:
                problem = "stdout differs from .expected: " + first_difference(expected, got.stdout)
            elif got.status != status:
                problem = f"exit status {got.status}, expected {status} ({last_line(got.stderr)[:120]})"
            elif os.path.isfile(stem + ".stderr"):
                with open(stem + ".stderr", "rb") as f:
                    want = f.read().strip()
                times = got.stderr.count(want)
                if times == 0:
                    problem = f"stderr lacks {want.decode(errors='replace')!r}: {last_line(got.stderr)[:100]!r}"
                elif times > 1:
                    problem = f"stderr has {want.decode(errors='replace')!r} {times} times, not once"
            elif got.stderr and status == 0:
                problem = f"unexpected stderr: {last_line(got.stderr)[:120]!r}"
        self.report(f"js/{name}", problem, f" (exit {got.status}, fuel {got.fuel})")

    def seed(self, program):
        """A different seed changes the random output and nothing else."""
        a, b = self.backend.run(program, seed=1), self.backend.run(program, seed=2)
        problem = None
        if a.status != 0 or b.status != 0:
            problem = f"exit status {a.status}/{b.status}: {last_line(a.stderr or b.stderr)[:120]}"
        elif a.stdout == b.stdout:
            problem = "seeds 1 and 2 gave the same output"
        elif len(a.stdout) != len(b.stdout) or a.stderr != b.stderr or a.fuel != b.fuel:
            problem = f"more than the output changed: fuel {a.fuel} vs {b.fuel}, stderr equal {a.stderr == b.stderr}"
        elif a.record is not None and b.record is not None:
            ignore = RECORD_TIME_FIELDS + ("seed", "stdout.sha256")
            ra, rb = record_without(a.record, ignore), record_without(b.record, ignore)
            if ra != rb:
                keys = sorted(k for k in set(ra) | set(rb) if ra.get(k) != rb.get(k))
                problem = f"records differ beyond seed and stdout digest: {', '.join(keys)}"
            elif (a.record["seed"], b.record["seed"]) != (1, 2):
                problem = f"records carry seeds {a.record['seed']}, {b.record['seed']} (wanted 1, 2)"
        again = self.backend.run(program, seed=1)
        if not problem and (again.stdout != a.stdout or again.fuel != a.fuel):
            problem = "seed 1 twice gave different runs"
        self.report(f"seed/{os.path.basename(program)}", problem, f" (fuel {a.fuel})")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    guest.add_backend_arguments(ap)
    ap.add_argument("--corpus", default=os.path.join(guest.ROOT, "tests", "corpus"))
    ap.add_argument("--no-determinism", action="store_true", help="run each program once")
    ap.add_argument("only", nargs="*", help="only these programs (file names, e.g. json_roundtrip.py)")
    opts = ap.parse_args()

    backend = guest.open_backend(opts)
    if backend is None:
        return 0
    checker = Checker(backend, not opts.no_determinism)
    py_dir, js_dir = os.path.join(opts.corpus, "python"), os.path.join(opts.corpus, "js")
    wanted = set(opts.only)

    py = sorted(n for n in os.listdir(py_dir) if n.endswith(".py")) if os.path.isdir(py_dir) else []
    if not os.access(NATIVE_PYTHON, os.X_OK):
        print(f"note: {NATIVE_PYTHON} is missing (apt-get install python3.11); Python programs not compared")
        py = []
    for name in py:
        if not wanted or name in wanted:
            checker.python(py_dir, name)
    js = sorted(n for n in os.listdir(js_dir) if n.endswith((".js", ".mjs"))) if os.path.isdir(js_dir) else []
    for name in js:
        if not wanted or name in wanted:
            checker.js(js_dir, name)
    if not wanted or "seed_random.py" in wanted:
        checker.seed(os.path.join(here, "guests", "seed_random.py"))
    print(f"corpus: {checker.passed} passed, {checker.failed} failed")
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
