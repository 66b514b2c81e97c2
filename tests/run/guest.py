"""Running one guest program through ampoule, shared by tests/run/*.py.

Two ways to run a program (a "backend"):

  run    `ampoule run PROG --input NAME=FILE... [--stdin F] --seed N --record R`:
         the product path (kernel, jail, snapshot). The record is read back.
  wasm   `ampoule wasm run python.wasm|js.wasm` with the runtime files from a
         scripts/build-runtimes.sh output folder (command modules or reactors),
         mounted the way the kernel does it: /usr/local (python only), /input,
         /program. No jail, no snapshot, no record: fuel comes from --stats.
         It validates the corpus against the same CPython/QuickJS builds
         before `ampoule run` exists, and stays useful to tell a runtime
         difference from a run-path difference.

Backend.probe() says whether a backend can run here, with the reason when not.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_TIMEOUT = 600  # seconds per guest run, far above any corpus program
STATS = re.compile(rb"(?:^|\n)ampoule stats: ([^\n]*)\n?$")
# A line `ampoule run` adds after the guest's stderr about its output files.
OUTPUT_NOTE = re.compile(rb"ampoule run: (?:wrote \d+ output files? to |the guest left \d+ files? in /output|\d+ files? in /output could not leave)[^\n]*\n$")


def strip_output_notes(stderr):
    """The guest's stderr without the output-file notes ampoule run adds after it."""
    while stderr:
        start = stderr.rfind(b"\n", 0, len(stderr) - 1) + 1
        if not OUTPUT_NOTE.match(stderr[start:]):
            break
        stderr = stderr[:start]
    return stderr


class Result:
    """What one guest run produced."""

    def __init__(self, stdout, stderr, status, fuel, record=None, output_files=None):
        self.stdout, self.stderr, self.status, self.fuel, self.record = stdout, stderr, status, fuel, record
        self.output_files = output_files or {}  # name -> (sha256, bytes) as --outputs wrote them


def default_ampoule():
    return os.environ.get("AMPOULE") or os.path.join(ROOT, "build", "bin", "ampoule")


def runtime_for(path):
    return {".py": "python", ".js": "js", ".mjs": "js"}.get(os.path.splitext(path)[1], "wasm")


def input_files(folder):
    """Plain files of an input folder as (name, path), sorted; [] for None."""
    if not folder or not os.path.isdir(folder):
        return []
    return sorted((n, os.path.join(folder, n)) for n in os.listdir(folder)
                  if os.path.isfile(os.path.join(folder, n)))


class RunBackend:
    name = "run"

    def __init__(self, ampoule, kernel=None, run_args=()):
        self.ampoule, self.kernel, self.run_args = ampoule, kernel, list(run_args)

    def probe(self):
        if not os.access(self.ampoule, os.X_OK):
            return f"{self.ampoule} is not built"
        try:
            help_run = subprocess.run([self.ampoule, "run", "--help"], capture_output=True, timeout=60)
        except OSError as e:
            return f"cannot start {self.ampoule}: {e}"
        if help_run.returncode != 0:
            return f"'{self.ampoule} run' is not available (exit {help_run.returncode})"
        kernel = self.kernel or os.environ.get("AMPOULE_KERNEL")
        if not kernel:
            path = subprocess.run([self.ampoule, "kernel", "path"], capture_output=True, text=True, timeout=60)
            kernel = path.stdout.strip() if path.returncode == 0 else ""
        if not kernel or not os.path.isfile(kernel):
            return f"no kernel file ({kernel or 'ampoule kernel path failed'}); build one with scripts/build-kernel.sh"
        self.kernel = kernel
        return None

    def describe(self):
        return f"ampoule run ({self.ampoule}, kernel {self.kernel})"

    def argv(self, program, inputs, stdin, seed, record, extra, outputs=None):
        cmd = [self.ampoule, "run", program, "--kernel", self.kernel, "--seed", str(seed), "--record", record]
        if outputs:
            cmd += ["--outputs", outputs]
        cmd += self.run_args
        for name, path in inputs:
            cmd += ["--input", f"{name}={path}"]
        if stdin:
            cmd += ["--stdin", stdin]
        return cmd + list(extra)

    def run(self, program, inputs=(), stdin=None, seed=0, extra=(), timeout=RUN_TIMEOUT):
        with tempfile.TemporaryDirectory(prefix="ampoule-guest-") as tmp:
            record_path = os.path.join(tmp, "record.json")
            outputs = os.path.join(tmp, "outputs")
            proc = subprocess.run(self.argv(program, inputs, stdin, seed, record_path, extra, outputs),
                                  capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout)
            record = None
            if os.path.exists(record_path) and os.path.getsize(record_path) > 0:
                with open(record_path) as f:
                    record = json.load(f)
            fuel = record["result"]["fuel_used"] if record else None
            files = {}
            for root, _, names in os.walk(outputs):
                for name in names:
                    with open(os.path.join(root, name), "rb") as f:
                        data = f.read()
                    files[os.path.relpath(os.path.join(root, name), outputs)] = (
                        hashlib.sha256(data).hexdigest(), len(data))
            return Result(proc.stdout, strip_output_notes(proc.stderr), proc.returncode, fuel, record, files)


class WasmBackend:
    name = "wasm"

    def __init__(self, ampoule, runtimes=None):
        self.ampoule = ampoule
        self.runtimes = runtimes or os.environ.get("AMPOULE_RUNTIMES_DIR") or self._latest_build()

    @staticmethod
    def _latest_build():
        """The last build of scripts/build-runtimes.sh, found the way it stores it."""
        cache_root = os.environ.get("AMPOULE_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ampoule")
        caches = [os.environ.get("AMPOULE_RUNTIMES_CACHE") or os.path.join(cache_root, "runtimes"),
                  os.path.join(ROOT, ".cache", "runtimes")]  # where older builds kept it
        for cache in caches:
            try:
                with open(os.path.join(cache, "latest")) as f:
                    return os.path.join(cache, f.read().strip())
            except OSError:
                continue
        return None

    def probe(self):
        if not os.access(self.ampoule, os.X_OK):
            return f"{self.ampoule} is not built"
        if not self.runtimes:
            return "no runtime build (run scripts/build-runtimes.sh, or set AMPOULE_RUNTIMES_DIR)"
        for f in ("python.wasm", "lib/python311.zip", "js.wasm", "share/zoneinfo.tar"):
            if not os.path.isfile(os.path.join(self.runtimes, f)):
                return f"{self.runtimes} has no {f}"
        with tempfile.TemporaryDirectory(prefix="ampoule-probe-") as tmp:
            probe = os.path.join(tmp, "probe.py")
            with open(probe, "w") as f:
                f.write("print(1)\n")
            r = self.run(probe, timeout=300)
        if r.status != 0 or r.stdout != b"1\n":
            last = (r.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
            return f"python.wasm in {self.runtimes} does not run under 'ampoule wasm run' (exit {r.status}: {last})"
        return None

    def describe(self):
        return f"ampoule wasm run ({self.ampoule}, runtimes {self.runtimes})"

    def run(self, program, inputs=(), stdin=None, seed=0, extra=(), timeout=RUN_TIMEOUT):
        runtime = runtime_for(program)
        name = os.path.basename(program)
        with tempfile.TemporaryDirectory(prefix="ampoule-guest-") as tmp:
            # The same guest view as the kernel gives: only the program under
            # /program, only the inputs (flat, by name) under /input, an
            # empty /tmp and /output, the empty working directory /, in the
            # kernel's order.
            for folder in ("program", "input", "tmp", "output", "work"):
                os.mkdir(os.path.join(tmp, folder))
            shutil.copyfile(program, os.path.join(tmp, "program", name))
            for input_name, path in inputs:
                shutil.copyfile(path, os.path.join(tmp, "input", input_name))
            cmd = [self.ampoule, "wasm", "run"]
            if runtime == "python":
                # The kernel's time-zone data, unpacked as the engine does.
                zoneinfo = os.path.join(tmp, "zoneinfo")
                with tarfile.open(os.path.join(self.runtimes, "share", "zoneinfo.tar")) as tar:
                    if hasattr(tarfile, "data_filter"):
                        tar.extractall(zoneinfo, filter="data")
                    else:  # a Python without extraction filters; the archive is our own build's
                        tar.extractall(zoneinfo)
                cmd += [os.path.join(self.runtimes, "python.wasm"), "--dir", f"/usr/local={self.runtimes}",
                        "--dir", f"/usr/share/zoneinfo={zoneinfo}",
                        "--env", "PYTHONHOME=/usr/local", "--env", "PYTHONHASHSEED=0",
                        "--env", "PYTHONDONTWRITEBYTECODE=1"]
            elif runtime == "js":
                cmd += [os.path.join(self.runtimes, "js.wasm")]
            else:
                cmd += [program]
            cmd += ["--dir", f"/input={tmp}/input", "--seed", str(seed), "--stats"]
            if runtime != "wasm":
                cmd += ["--dir", f"/program={tmp}/program"]
            cmd += ["--dir", f"/tmp={tmp}/tmp", "--dir", f"/output={tmp}/output", "--dir", f"/={tmp}/work"]
            if stdin:
                cmd += ["--stdin", stdin]
            cmd += list(extra)
            if runtime != "wasm":
                cmd += ["--", f"/program/{name}"]
            proc = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout)
        stderr, fuel = proc.stderr, None
        m = STATS.search(stderr)
        if m:
            stderr = stderr[:m.start() + (1 if m.group(0).startswith(b"\n") else 0)]
            f = re.search(rb"fuel_used=(\d+)", m.group(1))
            fuel = int(f.group(1)) if f else None
        return Result(proc.stdout, stderr, proc.returncode, fuel)


def choose(kind, ampoule, kernel=None, runtimes=None, run_args=()):
    """Returns (backend or None, notes): the first usable backend for `kind`
    (run, wasm or auto = run, else wasm) and why the others were passed over.
    run_args go to every `ampoule run` (e.g. --insecure-no-jail)."""
    candidates = {"run": [RunBackend(ampoule, kernel, run_args)], "wasm": [WasmBackend(ampoule, runtimes)],
                  "auto": [RunBackend(ampoule, kernel, run_args), WasmBackend(ampoule, runtimes)]}[kind]
    notes = []
    for backend in candidates:
        why = backend.probe()
        if why is None:
            return backend, notes
        notes.append(f"{backend.name}: {why}")
    return None, notes


def add_backend_arguments(ap):
    """The command-line options that pick how guests run (shared by the checks)."""
    ap.add_argument("--backend", choices=["auto", "run", "wasm"], default="auto",
                    help="how guests run (default: ampoule run if it can, else ampoule wasm run)")
    ap.add_argument("--ampoule", default=default_ampoule(), help="the ampoule binary ($AMPOULE)")
    ap.add_argument("--kernel", help="kernel file for ampoule run (default: $AMPOULE_KERNEL, ampoule kernel path)")
    ap.add_argument("--runtimes", help="runtime build folder for the wasm backend (default: the latest build)")
    ap.add_argument("--insecure-no-jail", action="store_true",
                    help="pass --insecure-no-jail to ampoule run (where namespaces are unavailable)")


def open_backend(opts):
    """The backend `opts` ask for, after printing which one and why others were not used;
    None, after printing the skip line ctest looks for, when no guest can run here."""
    backend, notes = choose(opts.backend, opts.ampoule, opts.kernel, opts.runtimes,
                            ["--insecure-no-jail"] if opts.insecure_no_jail else [])
    if backend is None:
        print("skipped: no way to run guests here: " + "; ".join(notes))
        return None
    print(f"backend: {backend.describe()}")
    for note in notes:
        print(f"note: not using {note}")
    return backend
