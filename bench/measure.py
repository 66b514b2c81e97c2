#!/usr/bin/env python3
"""Times workloads side by side and prints the comparison (bench/engine.sh).

    measure.py PLAN.json

PLAN.json: {"runs": 5, "timeout": 600, "launcher": "/path/rusage_run", "metric": "wall",
            "runners": [{"name": "native", "cmd": []}, {"name": "engine", "cmd": [...]}, ...],
            "workloads": [{"name": "zlib", "native": "/path/zlib", "wasm": "/path/zlib.wasm",
                           "args": ["1"]}, ...]}

The runner called "native" runs the native binary; every other runner runs
its cmd, the wasm file, its "args_after" (e.g. "--") and the args. Runs are interleaved (run 1
of every cell, then run 2, ...) so that a change in machine load hits every
cell alike. A cell counts only if every run exited 0 and printed exactly
what the native build printed. Per run: wall time, CPU time (user + system,
all threads) and peak RSS, the last two from bench/rusage_run. The plan's "metric" ("wall", the
default, or "cpu") decides which time the ratios and the geomean use; CPU
time is the steadier one on a machine that is busy with other work.
"""
import json
import math
import signal
import os
import statistics
import subprocess
import sys
import tempfile
import time

SPREAD_LIMIT = 0.10  # (max - min) / median above this: not yet trustworthy
RETRY_ON_SIGNAL = {"node"}  # peers whose runs are retried when they die by a signal


class Usage:
    """What one run used, as bench/rusage_run reported it."""

    def __init__(self, text):
        rss, user, system, sig = text.split()
        self.ru_maxrss, self.ru_utime, self.ru_stime, self.signal = int(rss), float(user), float(system), int(sig)


def run_once(launcher, argv, timeout):
    """Returns (wall seconds, exit status (negative: signal), stdout bytes, Usage, error text).

    The command runs under `launcher` (bench/rusage_run), in its own process
    group so that a timeout can stop all of it.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as report:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen([launcher, report.name] + argv, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            return None, None, b"", None, str(e)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None, None, b"", None, f"timed out after {timeout}s"
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        errors = err.read().decode(errors="replace")
        text = report.read()
        if not text:
            return None, None, b"", None, f"could not run: {errors.strip()[-200:]}"
        usage = Usage(text)
        status = -usage.signal if usage.signal else proc.returncode
        return seconds, status, out.read(), usage, errors


def fmt_time(s):
    return f"{s:.3f} s" if s < 10 else f"{s:.2f} s"


def main():
    plan = json.load(open(sys.argv[1]))
    runs, timeout, launcher = plan["runs"], plan["timeout"], plan["launcher"]
    runners = [r["name"] for r in plan["runners"]]
    cmd = {r["name"]: r["cmd"] for r in plan["runners"]}
    sep = {r["name"]: r.get("args_after", []) for r in plan["runners"]}
    results = {}  # (workload, runner) -> {"wall": [], "cpu": [], "rss": [], "error": str|None}
    expected = {}  # workload -> the native build's stdout
    notes = []
    for w in plan["workloads"]:
        for r in runners:
            results[(w["name"], r)] = {"wall": [], "cpu": [], "rss": [], "error": None}

    for i in range(runs):
        for w in plan["workloads"]:
            for r in runners:
                cell = results[(w["name"], r)]
                if cell["error"]:
                    continue
                argv = [w["native"]] + w["args"] if r == "native" else \
                    cmd[r] + [w["wasm"]] + sep[r] + w["args"]
                secs, status, out, usage, err = run_once(launcher, argv, timeout)
                # Node 20 occasionally dies by a signal on large-memory modules (a V8
                # problem, not the workload's): a peer's crash is retried, and noted.
                # A crash of our engine is never retried: it is a bug.
                retries = 0
                while r in RETRY_ON_SIGNAL and status is not None and status < 0 and retries < 2:
                    retries += 1
                    notes.append(f"{w['name']} on {r}, run {i + 1}: killed by "
                                 f"{signal.Signals(-status).name}; retried")
                    secs, status, out, usage, err = run_once(launcher, argv, timeout)
                if secs is None:
                    cell["error"] = err
                elif status < 0:
                    cell["error"] = f"killed by {signal.Signals(-status).name}"
                elif status != 0:
                    last = (err.strip().splitlines() or ["(no message)"])[-1]
                    cell["error"] = f"exit {status}: {last[:120]}"
                elif r == "native":
                    expected.setdefault(w["name"], out)
                    if out != expected[w["name"]]:
                        cell["error"] = "native output differs between runs"
                elif out != expected.get(w["name"]):
                    cell["error"] = "output differs from native: " + out.decode(errors="replace").strip()[:100]
                if cell["error"]:
                    print(f"  {w['name']:8} {r:7} run {i + 1}: FAILED ({cell['error']})", flush=True)
                    continue
                cpu = usage.ru_utime + usage.ru_stime
                cell["wall"].append(secs)
                cell["cpu"].append(cpu)
                cell["rss"].append(usage.ru_maxrss)
                print(f"  {w['name']:8} {r:7} run {i + 1}/{runs}: {fmt_time(secs)} wall, {fmt_time(cpu)} cpu",
                      flush=True)

    if notes:
        print()
        print("\n".join("note: " + n for n in notes))
    report(plan, runners, results, expected)


def summary(times):
    med = statistics.median(times)
    spread = (max(times) - min(times)) / med if med > 0 else 0.0
    return med, spread


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def time_table(names, runners, results, metric, title):
    """Prints one table of medians and spreads; returns {(workload, runner): median}."""
    print(title)
    print(f"{'workload':10}" + "".join(f"{r:>24}" for r in runners))
    untrusted = False
    medians = {}
    for n in names:
        row = f"{n:10}"
        for r in runners:
            cell = results[(n, r)]
            if cell["error"] or not cell[metric]:
                row += f"{'failed':>24}"
                continue
            med, spread = summary(cell[metric])
            medians[(n, r)] = med
            flag = " !" if spread > SPREAD_LIMIT else "  "
            untrusted |= spread > SPREAD_LIMIT
            row += f"{fmt_time(med) + ' ±' + format(spread * 100, '.1f') + '%' + flag:>24}"
        print(row)
    if untrusted:
        print("  ! spread over 10%: not yet trustworthy (machine busy? more runs?)")
    print()
    return medians


def report(plan, runners, results, expected):
    names = [w["name"] for w in plan["workloads"]]
    metric = plan.get("metric", "wall")
    print()
    for n in names:
        if n in expected:
            print(f"{n}: {expected[n].decode(errors='replace').strip()}")
    print()
    spread_note = f"median of {plan['runs']} runs, spread = (max - min) / median"
    wall = time_table(names, runners, results, "wall", f"wall time ({spread_note})")
    cpu = time_table(names, runners, results, "cpu", f"cpu time, user + system, all threads ({spread_note})")
    medians = cpu if metric == "cpu" else wall
    for n in names:
        for r in runners:
            if results[(n, r)]["error"]:
                print(f"  {n} on {r} failed: {results[(n, r)]['error']}")

    print("peak RSS (median, MiB)")
    print(f"{'workload':10}" + "".join(f"{r:>12}" for r in runners))
    for n in names:
        row = f"{n:10}"
        for r in runners:
            cell = results[(n, r)]
            row += f"{'-':>12}" if cell["error"] else f"{statistics.median(cell['rss']) / 1024:>12.1f}"
        print(row)

    pairs = [(a, b) for a, b in (("engine", "native"), ("node", "native"), ("engine", "node"))
             if a in runners and b in runners]
    print()
    print(f"ratios of median {metric} time (lower is faster for the first)")
    print(f"{'workload':10}" + "".join(f"{a + '/' + b:>16}" for a, b in pairs))
    for n in names:
        row = f"{n:10}"
        for a, b in pairs:
            if (n, a) in medians and (n, b) in medians and medians[(n, b)] > 0:
                row += f"{medians[(n, a)] / medians[(n, b)]:>16.2f}"
            else:
                row += f"{'-':>16}"
        print(row)
    print()

    def ratios(a, b, m):
        return [m[(n, a)] / m[(n, b)] for n in names if (n, a) in m and (n, b) in m and m[(n, b)] > 0]

    for a, b in pairs[1:]:
        if ratios(a, b, medians):
            print(f"geomean {a}/{b}: {geomean(ratios(a, b, medians)):.2f}"
                  f" ({len(ratios(a, b, medians))} of {len(names)} workloads)")
    other, other_name = (wall, "wall") if metric == "cpu" else (cpu, "cpu")
    if ratios("engine", "native", other):
        print(f"geomean engine/native by {other_name} time: {geomean(ratios('engine', 'native', other)):.2f}")
    found = ratios("engine", "native", medians)
    if "engine" in runners and found:
        if len(found) < len(names):
            print(f"note: geomean engine/native covers {len(found)} of {len(names)} workloads")
        print(f"geomean engine/native: {geomean(found):.2f}")
    else:
        print("geomean engine/native: n/a (the engine ran no workload correctly)")


if __name__ == "__main__":
    main()
