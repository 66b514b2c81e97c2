#!/usr/bin/env python3
"""Runs the public WASI preview 1 test suite through `ampoule wasm run`.

The suite's folder holds prebuilt test programs and, beside each, an optional
NAME.json (the suite's "legacy" specification: args, env, root, exit_code,
stdout, stderr; or "operations" with run/wait/read). Each test runs on a fresh
copy of its root folder, preopened as the guest's "/". Since a run never
writes to the host, the copy must come back unchanged: that is checked too.

Prints one line per test and a total; exit status 0 only if every test
passed, 2 for a usage error. With the suite absent it prints a line starting
"skipped: " and exits 0 (ctest counts it as skipped).
"""
import argparse
import filecmp
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

PROPOSALS_WE_LACK = {"http", "sockets"}


def load_spec(wasm: pathlib.Path) -> dict:
    """The test's expectations, with the suite's defaults filled in."""
    spec_file = wasm.with_suffix(".json")
    raw = json.loads(spec_file.read_text()) if spec_file.exists() else {}
    spec = {"args": [], "env": {}, "root": None, "exit_code": 0, "stdout": "", "stderr": None,
            "proposals": raw.get("proposals", [])}
    operations = raw.get("operations")
    if operations is None:
        spec.update({k: v for k, v in raw.items() if k in spec})
        return spec
    for op in operations:
        kind = op.get("type")
        if kind == "run":
            spec.update({k: op[k] for k in ("args", "env", "root") if k in op})
        elif kind == "wait":
            spec["exit_code"] = op.get("exit_code", 0)
        elif kind == "read":
            spec["stderr" if op.get("id") == "stderr" else "stdout"] = op.get("payload", "")
        else:
            spec["unsupported"] = f"operation {kind!r}"
    return spec


def same_tree(a: pathlib.Path, b: pathlib.Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(same_tree(a / d, b / d) for d in cmp.common_dirs)


def run_test(ampoule: str, wasm: pathlib.Path, scratch: pathlib.Path) -> str:
    """'' if the test passed, else why not."""
    spec = load_spec(wasm)
    lacking = PROPOSALS_WE_LACK.intersection(spec["proposals"])
    if lacking or "unsupported" in spec:
        return f"needs {', '.join(sorted(lacking)) or spec['unsupported']}, which a sealed run refuses"
    cmd = [ampoule, "wasm", "run", str(wasm)]
    for key, value in spec["env"].items():
        cmd += ["--env", f"{key}={value}"]
    root_copy = None
    if spec["root"] is not None:
        root = wasm.parent / spec["root"]
        root_copy = scratch / wasm.stem
        shutil.copytree(root, root_copy)
        for cleanup in root_copy.rglob("*.cleanup"):
            cleanup.unlink()
        cmd += ["--dir", f"/={root_copy}"]
    cmd += ["--", *spec["args"]]
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timed out after 300 s"
    problems = []
    if done.returncode != spec["exit_code"]:
        problems.append(f"exit {done.returncode}, expected {spec['exit_code']}")
    if done.stdout.decode(errors="replace") != spec["stdout"]:
        problems.append(f"stdout {done.stdout[:200]!r}, expected {spec['stdout'][:200]!r}")
    if spec["stderr"] is not None and done.stderr.decode(errors="replace") != spec["stderr"]:
        problems.append(f"stderr {done.stderr[:200]!r}, expected {spec['stderr'][:200]!r}")
    elif spec["exit_code"] == 0 and done.returncode != 0 and done.stderr:
        problems.append(f"stderr {done.stderr[:300]!r}")
    if root_copy is not None and not same_tree(wasm.parent / spec["root"], root_copy):
        problems.append("the run changed the host folder it was given")
    return "; ".join(problems)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ampoule", required=True, help="the ampoule binary")
    parser.add_argument("suite", help="the suite's folder (subfolders of NAME.wasm tests)")
    args = parser.parse_args()
    suite = pathlib.Path(args.suite)
    if not suite.is_dir():
        print(f"skipped: WASI test suite folder {suite} not found (docs/conformance.md)")
        return 0
    tests = sorted(suite.rglob("*.wasm"))
    if not tests:
        print(f"skipped: no *.wasm tests under {suite}")
        return 0
    failed = 0
    with tempfile.TemporaryDirectory(prefix="wasi-testsuite-") as tmp:
        for wasm in tests:
            name = wasm.relative_to(suite).with_suffix("")
            why = run_test(args.ampoule, wasm, pathlib.Path(tmp))
            print(f"{name}: {'FAILED: ' + why if why else 'ok'}", flush=True)
            failed += bool(why)
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
