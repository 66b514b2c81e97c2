#!/usr/bin/env python3
"""CPython's own regression tests for the batteries agent code reaches for,
run inside the guest: sqlite3, bz2, lzma, tempfile, csv, hashlib, zoneinfo
and datetime (docs/testing-runs.md).

  tests/run/cpython_stdlib_test.py [--backend auto|run|wasm] [--ampoule BIN] [--kernel K]
                             [--runtimes DIR] [--tests ZIP] [MODULE...]

Each module runs in its own guest (tests/run/cpython/run_module.py) with the
test files from the runtime build's test/cpython-tests.zip. A module passes
when the guest exits 0 and unittest reports no failure, error or unexpected
success; a test skipped because a module is missing fails it too, since the
point is that the module is there. Skips are CPython's own decisions (no
threads, no processes, regrtest resources not enabled) and are printed
grouped by reason. `skipped: REASON` (exit 0) when no guest can run here.
"""
import argparse
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

MODULES = ["test.test_sqlite3", "test.test_bz2", "test.test_lzma", "test.test_tempfile",
           "test.test_csv", "test.test_hashlib", "test.test_zoneinfo", "test.test_datetime"]
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpython", "run_module.py")
FUEL = 2_000_000_000_000  # far above the largest module (docs/testing-runs.md has the figures)
TIMEOUT = 1800  # seconds per module, a safety net only


def summary_of(stdout):
    lines = stdout.decode(errors="replace").rstrip().splitlines()
    if not lines:
        return None
    try:
        return json.loads(lines[-1])
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    guest.add_backend_arguments(ap)
    ap.add_argument("--tests", help="the zip of Lib/test files (default: the runtime build's)")
    ap.add_argument("modules", nargs="*", default=MODULES)
    opts = ap.parse_args()

    tests_zip = opts.tests
    if not tests_zip:
        build = opts.runtimes or os.environ.get("AMPOULE_RUNTIMES_DIR") or guest.WasmBackend._latest_build()
        tests_zip = os.path.join(build, "test", "cpython-tests.zip") if build else None
    if not tests_zip or not os.path.isfile(tests_zip):
        print(f"skipped: no CPython test files ({tests_zip or 'no runtime build'}); "
              "run scripts/build-runtimes.sh or pass --tests")
        return 0
    backend = guest.open_backend(opts)
    if backend is None:
        return 0
    extra = ["--fuel", str(FUEL)] + (["--timeout", str(TIMEOUT)] if backend.name == "run" else [])

    failed = []
    with tempfile.TemporaryDirectory(prefix="cpython-tests-") as tmp:
        for module in opts.modules:
            stdin = os.path.join(tmp, "module.txt")
            with open(stdin, "w") as f:
                f.write(module + "\n")
            r = backend.run(RUNNER, inputs=[("cpython-tests.zip", tests_zip)], stdin=stdin, extra=extra,
                            timeout=TIMEOUT + 60)
            s = summary_of(r.stdout)
            missing = [t for t, why in (s or {}).get("skipped", []) if "No module named" in why]
            bad = s is None or r.status != 0 or s["failures"] or s["errors"] or s["unexpected_successes"] or missing
            fuel = f", fuel {r.fuel:,}" if r.fuel else ""
            if bad:
                failed.append(module)
                print(f"FAIL {module}: exit {r.status}{fuel}")
                sys.stdout.write(r.stdout.decode(errors="replace")[-20000:])
                sys.stdout.write(r.stderr.decode(errors="replace")[-5000:])
                if missing:
                    print(f"  skipped because a module is missing: {', '.join(missing)}")
                continue
            print(f"ok   {module}: {s['run']} run, {s['passed']} passed, {len(s['skipped'])} skipped, "
                  f"{s['expected_failures']} expected failures{fuel}")
            reasons = collections.Counter(why for _, why in s["skipped"])
            for why, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"       skipped {n:4d}: {why}")
    print(f"cpython tests: {len(opts.modules) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
