#!/usr/bin/env python3
"""Packs the CPython regression tests named in a list into one zip, as sources.

The guest extracts it into its writable /tmp and runs the tests there
(tests/run/cpython_stdlib_test.py). The zip is byte-identical on every machine:
sorted names, fixed times and modes (pack_stdlib.add).

Usage: pack_tests.py --lib-test DIR --list FILE --out ZIP
"""
import argparse
import pathlib
import sys
import zipfile

from pack_stdlib import add


def listed_files(lib_test: pathlib.Path, listing: pathlib.Path) -> dict:
    files = {}
    for line in listing.read_text(encoding="utf-8").splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        path = lib_test / entry
        if path.is_dir():
            found = [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        elif path.is_file():
            found = [path]
        else:
            sys.exit(f"pack_tests: {listing} names '{entry}', which is not in {lib_test}")
        for p in found:
            files["test/" + p.relative_to(lib_test).as_posix()] = p
    return files


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-test", required=True, type=pathlib.Path)
    ap.add_argument("--list", required=True, type=pathlib.Path)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    args = ap.parse_args()
    files = listed_files(args.lib_test, args.list)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".tmp")
    with zipfile.ZipFile(tmp_out, "w") as zf:
        for name in sorted(files):
            add(zf, name, files[name].read_bytes())
    tmp_out.replace(args.out)
    print(f"pack_tests: {len(files)} files -> {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
