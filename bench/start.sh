#!/usr/bin/env bash
# The start-up benchmark: a cold `print(1)` in Python, end to end (process
# start to exit, output checked), through `ampoule run`, beside native
# CPython and beside Node running the same python.wasm.
#
#   bash bench/start.sh
#
# Prints, for each runner, p50 and p95 of the wall time over START_RUNS runs
# (interleaved, after one untimed warm-up run each), the spread
# (max - min) / median as bench/measure.py does (over 10%: not trustworthy),
# ratios of the p50s, the peak RSS of one run (bench/rusage_run: for
# `ampoule run` this includes the jailed engine process it waits for), and
# runs per second when many print(1) runs go in parallel, one worker per
# core. Ends with `python cold start p50: X ms` (`n/a` and exit status 1 when
# `ampoule run` cannot run here).
#
# Runners:
#   ampoule   ampoule run print1.py                    (kernel: $AMPOULE_KERNEL or the default)
#   native    /usr/bin/python3.11 -c 'print(1)'        (Debian's CPython 3.11)
#   node      node runtimes/test/run-wasi.mjs ... python.wasm /program/print1.py
#   wasm-run  ampoule wasm run python.wasm ...         (no jail, no snapshot: what the
#                                                       snapshot and the run path change)
#
# Environment:
#   START_RUNS          timed runs per runner (default 30, at least 30 for a p95)
#   START_PARALLEL      print(1) runs in the parallel phase (default 40)
#   AMPOULE             the ampoule binary (default build/bin/ampoule)
#   AMPOULE_KERNEL      the kernel for ampoule run (default: ampoule kernel path)
#   START_RUN_ARGS      extra arguments for ampoule run, e.g. --insecure-no-jail where
#                       namespaces are unavailable (the figure then says so)
#   AMPOULE_RUNTIMES_DIR  runtime build folder for the node runner (default: the latest
#                       build of scripts/build-runtimes.sh, in its cache)
# Needs: python3, node, clang-14 or cc (for bench/rusage_run.c), /usr/bin/python3.11.
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly CACHE="$ROOT/.cache/bench"
readonly RUNS="${START_RUNS:-30}"
readonly PARALLEL="${START_PARALLEL:-40}"
readonly NATIVE_PYTHON=/usr/bin/python3.11
AMPOULE="${AMPOULE:-$ROOT/build/bin/ampoule}"

log() { printf 'start: %s\n' "$*" >&2; }
die() { printf 'start: %s\n' "$*" >&2; exit 2; }

command -v python3 >/dev/null || die "python3 is not installed"
command -v node >/dev/null || die "node is not installed (scripts/setup.sh)"
[[ -x "$NATIVE_PYTHON" ]] || die "$NATIVE_PYTHON is missing (apt-get install python3.11)"
((RUNS >= 1)) || die "START_RUNS must be at least 1"
((RUNS >= 30)) || log "note: START_RUNS=$RUNS; a p95 wants at least 30 runs"
mkdir -p "$CACHE"

# bench/rusage_run: peak RSS of a command and the processes it waited for.
launcher="$CACHE/rusage_run"
if [[ ! -x "$launcher" || "$ROOT/bench/rusage_run.c" -nt "$launcher" ]]; then
  cc_bin="$(command -v clang-14 || command -v cc)" || die "no C compiler for bench/rusage_run.c"
  "$cc_bin" -O2 -Wall "$ROOT/bench/rusage_run.c" -o "$launcher" >&2 || die "bench/rusage_run.c did not build"
fi

# The last runtime build, found where scripts/build-runtimes.sh keeps it (or kept it).
runtimes="${AMPOULE_RUNTIMES_DIR:-}"
cache_root="${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/ampoule}"
for cache in "${AMPOULE_RUNTIMES_CACHE:-$cache_root/runtimes}" "$ROOT/.cache/runtimes"; do
  if [[ -z "$runtimes" && -f "$cache/latest" ]]; then
    runtimes="$cache/$(cat "$cache/latest")"
  fi
done

python3 - "$ROOT" "$AMPOULE" "${AMPOULE_KERNEL:-}" "$runtimes" "$launcher" "$NATIVE_PYTHON" "$RUNS" "$PARALLEL" \
    "${START_RUN_ARGS:-}" <<'PY'
import concurrent.futures
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

root, ampoule, kernel, runtimes, launcher, native, runs, parallel, run_args = sys.argv[1:]
run_args = run_args.split()
runs, parallel = int(runs), int(parallel)
SPREAD_LIMIT = 0.10  # as bench/measure.py
EXPECTED = b"1\n"
work = tempfile.mkdtemp(prefix="ampoule-start-")
program_dir = os.path.join(work, "program")
input_dir = os.path.join(work, "input")
os.mkdir(program_dir)
os.mkdir(input_dir)
program = os.path.join(program_dir, "print1.py")
with open(program, "w") as f:
    f.write("print(1)\n")


def run_once(argv, timeout=120):
    """((wall seconds, cpu seconds), None) for a run that printed exactly 1 and
    exited 0; else (None, why). CPU time is user + system of the command and
    every process it waited for (for ampoule run: the jailed engine too)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            return None, str(e)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0 or stdout != EXPECTED:
        last = (stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        return None, f"exit {proc.returncode}, stdout {stdout[:40]!r}: {last[:160]}"
    return (seconds, usage.ru_utime + usage.ru_stime), None


def git_head():
    try:
        return subprocess.run(["git", "-C", root, "log", "-1", "--format=%h %cs"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "no git"


# --- runners -----------------------------------------------------------------
runners = {}  # name -> argv
notes = []
ampoule_why = None
if not os.access(ampoule, os.X_OK):
    ampoule_why = f"{ampoule} is not built"
else:
    probe = subprocess.run([ampoule, "run", "--help"], capture_output=True)
    if probe.returncode != 0:
        ampoule_why = f"'ampoule run' is not available in {ampoule} (exit {probe.returncode})"
    else:
        if not kernel:
            path = subprocess.run([ampoule, "kernel", "path"], capture_output=True, text=True)
            kernel = path.stdout.strip() if path.returncode == 0 else ""
        if not kernel or not os.path.isfile(kernel):
            ampoule_why = f"no kernel file ({kernel or 'ampoule kernel path failed'}); scripts/build-kernel.sh builds one"
        else:
            runners["ampoule"] = [ampoule, "run", program, "--kernel", kernel, *run_args]
runners["native"] = [native, "-c", "print(1)"]
python_wasm = os.path.join(runtimes, "python.wasm") if runtimes else ""
if python_wasm and os.path.isfile(python_wasm) and os.path.isfile(os.path.join(runtimes, "lib", "python311.zip")):
    guest_env = ["--env", "PYTHONHOME=/usr/local", "--env", "PYTHONHASHSEED=0", "--env", "PYTHONDONTWRITEBYTECODE=1"]
    runners["node"] = ["node", "--no-warnings", os.path.join(root, "runtimes", "test", "run-wasi.mjs"),
                       "--dir", f"{runtimes}=/usr/local", "--dir", f"{input_dir}=/input",
                       "--dir", f"{program_dir}=/program", *guest_env, python_wasm, "/program/print1.py"]
    if os.access(ampoule, os.X_OK):
        wasm_run = [ampoule, "wasm", "run", python_wasm, "--dir", f"/usr/local={runtimes}",
                    "--dir", f"/input={input_dir}", "--dir", f"/program={program_dir}", *guest_env,
                    "--", "/program/print1.py"]
        if run_once(wasm_run)[1] is None:
            runners["wasm-run"] = wasm_run
        else:
            notes.append("wasm-run: python.wasm does not run under 'ampoule wasm run' here")
else:
    notes.append(f"node: no runtime build with python.wasm and lib/python311.zip ({runtimes or 'none found'})")

print(f"ampoule: {ampoule} ({git_head()}){', kernel ' + kernel if 'ampoule' in runners else ''}"
      f"{' ' + ' '.join(run_args) if run_args else ''}")
if "ampoule" in runners:
    # What decides the start-up cost: snapshots, and the size of what each run reads and copies.
    info = subprocess.run([ampoule, "kernel", "info", kernel], capture_output=True, text=True).stdout
    facts = {line.split(None, 1)[0]: line.split(None, 1)[1].strip() for line in info.splitlines()
             if line.strip() and not line.startswith(" ") and len(line.split(None, 1)) == 2}
    print(f"kernel: {facts.get('bytes', '?')} bytes; engine {facts.get('engine', '?').split(', ')[-1]}; "
          f"snapshots {facts.get('snapshots', '?')}")
if "node" in runners:
    print(f"python.wasm for node and wasm-run: {python_wasm}")
print(f"native: {native}, node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}")
with open("/proc/loadavg") as f:
    load = " ".join(f.read().split()[:3])
print(f"{runs} timed runs per runner, interleaved, after one warm-up run; {os.cpu_count()} cores, load average {load}")
if ampoule_why:
    print(f"note: no ampoule runner: {ampoule_why}")
for n in notes:
    print(f"note: {n}")

# --- sequential cold starts --------------------------------------------------
times = {name: [] for name in runners}  # wall seconds
cpu = {name: [] for name in runners}  # user + system seconds
errors = {}
for name, argv in runners.items():
    _, why = run_once(argv)
    if why:
        errors[name] = why
for i in range(runs):
    for name, argv in runners.items():
        if name in errors:
            continue
        measured, why = run_once(argv)
        if why:
            errors[name] = f"run {i + 1}: {why}"
        else:
            times[name].append(measured[0])
            cpu[name].append(measured[1])


def p(values, q):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


print()
print("cold print(1): wall time from process start to exit, ms; cpu = user + system, all processes")
print(f"{'runner':10}{'p50':>9}{'p95':>9}{'min':>9}{'max':>9}{'spread':>9}{'cpu p50':>10}")
p50 = {}
untrusted = False
for name in runners:
    if name in errors or not times[name]:
        print(f"{name:10}   failed: {errors.get(name, 'no runs')}")
        continue
    t = times[name]
    med = statistics.median(t)
    spread = (max(t) - min(t)) / med
    p50[name] = med
    flag = " !" if spread > SPREAD_LIMIT else ""
    untrusted |= spread > SPREAD_LIMIT
    print(f"{name:10}{med * 1e3:9.1f}{p(t, 0.95) * 1e3:9.1f}{min(t) * 1e3:9.1f}{max(t) * 1e3:9.1f}"
          f"{spread * 100:8.1f}%{statistics.median(cpu[name]) * 1e3:10.1f}{flag}")
if untrusted:
    print("  ! spread over 10%: not yet trustworthy (machine busy? more runs?)")
pairs = [(a, b) for a, b in (("ampoule", "native"), ("ampoule", "node"), ("node", "native"),
                             ("ampoule", "wasm-run"), ("wasm-run", "native")) if a in p50 and b in p50]
if pairs:
    print("ratios of p50 (lower is faster for the first): " +
          ", ".join(f"{a}/{b} {p50[a] / p50[b]:.2f}" for a, b in pairs))
    print("ratios of cpu p50: " + ", ".join(
        f"{a}/{b} {statistics.median(cpu[a]) / statistics.median(cpu[b]):.2f}" for a, b in pairs))
with open("/proc/loadavg") as f:
    load_after = " ".join(f.read().split()[:3])
if float(load_after.split()[0]) > (os.cpu_count() or 1) / 2:
    print(f"note: the machine was busy (load average {load_after}); cpu time is the steadier figure")

# --- peak RSS of one run -----------------------------------------------------
print()
print("peak RSS of one run, MiB (bench/rusage_run; ampoule includes the engine process it waits for)")
for name, argv in runners.items():
    if name in errors:
        continue
    with tempfile.NamedTemporaryFile(mode="r") as report:
        proc = subprocess.run([launcher, report.name] + argv, capture_output=True, stdin=subprocess.DEVNULL)
        text = report.read().split()
    if proc.returncode != 0 or not text:
        print(f"  {name:10} failed (exit {proc.returncode})")
    else:
        print(f"  {name:10} {int(text[0]) / 1024:8.1f}")

# --- throughput ---------------------------------------------------------------
workers = os.cpu_count() or 1
print()
print(f"parallel print(1): {parallel} runs on {workers} workers (one per core)")
for name in ("ampoule", "native", "node"):
    if name not in runners or name in errors:
        continue
    argv = runners[name]
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda _: run_once(argv)[1], range(parallel)))
    wall = time.perf_counter() - start
    failed = [r for r in results if r]
    if failed:
        print(f"  {name:10} {len(failed)} of {parallel} runs failed: {failed[0]}")
    else:
        print(f"  {name:10} {parallel / wall:8.1f} runs/s ({wall:.2f} s)")

print()
if "ampoule" in p50:
    bar = "met" if p50["ampoule"] < 0.150 else "NOT met"
    print(f"bar (p50 under 150 ms on this machine): {bar}")
    print(f"python cold start p50: {p50['ampoule'] * 1e3:.1f} ms")
    sys.exit(0)
why = errors.get("ampoule") or ampoule_why or "no runs"
print(f"python cold start p50: n/a ({why})")
sys.exit(1)
PY
