#!/usr/bin/env python3
"""Packs CPython's standard library into a byte-reproducible, bytecode-only zip.

Usage: pack_stdlib.py --lib SRC/Lib --sysconfig BUILD/.../_sysconfigdata_*.py
                      --source-magic SRC/Lib/importlib/_bootstrap_external.py
                      --prefix /usr/local --out python311.zip

The zip is what the guest finds at <prefix>/lib/python311.zip, a path CPython
puts on sys.path by default. The runner sets PYTHONHOME=<prefix>; without it
CPython still imports from the zip but warns that it found no landmark files.

Reproducibility: entries are sorted, carry a fixed timestamp and permissions, and
each .pyc uses the "unchecked hash" header (PEP 552), so no source mtime and no
build path is embedded. co_filename is the module's source path inside the guest
(<prefix>/lib/python311.zip/<name>.py, beside the .pyc that __file__ names), so
tracebacks point where the source would be.

The bytecode is produced by the host's CPython, which must have the same magic
number as the target source tree (checked): the same minor version compiles to
the same bytecode format.
"""

import argparse
import importlib.util
import pathlib
import pprint
import py_compile
import re
import sys
import tempfile
import zipfile

# Left out: regression tests, GUI toolkits, packaging and build tooling, and
# packages whose C core cannot be built for WASI (their import would fail anyway).
OMIT_DIRS = {
    "test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo",
    "ensurepip", "venv", "lib2to3", "distutils", "pydoc_data", "msilib",
    "ctypes", "curses", "site-packages", "__pycache__",
    "__phello__",
}
OMIT_FILES = {"turtle.py", "antigravity.py", "this.py"}

FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold


def source_magic(bootstrap_external: pathlib.Path) -> bytes:
    """Returns the pyc magic number the target source tree defines."""
    text = bootstrap_external.read_text(encoding="utf-8")
    match = re.search(r"^MAGIC_NUMBER = \((\d+)\)\.to_bytes\(2, 'little'\) \+ b'\\r\\n'",
                      text, re.MULTILINE)
    if not match:
        sys.exit(f"pack_stdlib: no MAGIC_NUMBER line in {bootstrap_external}")
    return int(match.group(1)).to_bytes(2, "little") + b"\r\n"


def mapped_sysconfig(path: pathlib.Path, maps, tmp: pathlib.Path) -> pathlib.Path:
    """Rewrites the sysconfig data with each OLD path prefix replaced by NEW.

    configure records absolute build paths (srcdir, CONFIG_ARGS, flags); mapped,
    the zip does not depend on where the tree was checked out. The module is
    re-emitted from its values rather than edited as text, because the
    generator wraps long strings by length, so the layout (and with it the
    bytecode's line table) would still follow the length of the checkout path."""
    pairs = []
    for pair in maps:
        old, sep, new = pair.partition("=")
        if not sep or not old:
            sys.exit(f"pack_stdlib: --map-prefix wants OLD=NEW, got {pair!r}")
        pairs.append((old, new))
    namespace = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    values = {}
    for key, value in namespace["build_time_vars"].items():
        if isinstance(value, str):
            for old, new in pairs:
                value = value.replace(old, new)
        values[key] = value
    out = tmp / "sysconfig" / path.name
    out.parent.mkdir()
    out.write_text("# system configuration generated and used by the sysconfig module\n"
                   "build_time_vars = " + pprint.pformat(values, width=100) + "\n",
                   encoding="utf-8")
    return out


def wanted(rel: pathlib.PurePosixPath) -> bool:
    if any(part in OMIT_DIRS for part in rel.parts[:-1]):
        return False
    return rel.suffix == ".py" and rel.name not in OMIT_FILES


def compile_one(src: pathlib.Path, guest_name: str, tmp: pathlib.Path) -> bytes:
    out = tmp / "out.pyc"
    py_compile.compile(str(src), cfile=str(out), dfile=guest_name, doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    return out.read_bytes()


def add(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    info.create_system = 3  # unix, independent of the packing host
    zf.writestr(info, data, compresslevel=9)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, type=pathlib.Path)
    ap.add_argument("--sysconfig", required=True, type=pathlib.Path)
    ap.add_argument("--source-magic", required=True, type=pathlib.Path)
    ap.add_argument("--extra", type=pathlib.Path, action="append", default=[],
                    help="a module of our own to add at the zip's root")
    ap.add_argument("--map-prefix", action="append", default=[], metavar="OLD=NEW",
                    help="rewrite the build-directory paths recorded in the sysconfig data")
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    args = ap.parse_args()

    want_magic = source_magic(args.source_magic)
    if importlib.util.MAGIC_NUMBER != want_magic:
        sys.exit(f"pack_stdlib: host Python {sys.version.split()[0]} writes pyc magic "
                 f"{importlib.util.MAGIC_NUMBER!r}, the target needs {want_magic!r}; "
                 "use a host CPython of the same minor version")

    sources = {}
    for path in args.lib.rglob("*.py"):
        rel = pathlib.PurePosixPath(path.relative_to(args.lib).as_posix())
        if wanted(rel):
            sources[str(rel)] = path
    for extra in args.extra:
        sources[extra.name] = extra

    zip_in_guest = f"{args.prefix.rstrip('/')}/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".tmp")
    with tempfile.TemporaryDirectory() as tmpdir, \
            zipfile.ZipFile(tmp_out, "w") as zf:
        sources[args.sysconfig.name] = mapped_sysconfig(args.sysconfig, args.map_prefix,
                                                        pathlib.Path(tmpdir))
        for rel in sorted(sources):
            pyc = compile_one(sources[rel], f"{zip_in_guest}/{rel}", pathlib.Path(tmpdir))
            add(zf, rel[:-3] + ".pyc", pyc)
    tmp_out.replace(args.out)
    print(f"pack_stdlib: {len(sources)} modules -> {args.out} "
          f"({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
