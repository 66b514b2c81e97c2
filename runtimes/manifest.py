#!/usr/bin/env python3
"""Build key and manifest of the guest runtimes (used by scripts/build-runtimes.sh).

  manifest.py key INPUTS.tsv
      Prints the build key: the first 16 hex digits of the SHA-256 of the inputs
      in canonical form. INPUTS.tsv holds one "name<TAB>value" line per input
      (source package versions, toolchain package versions, flags, hashes of
      the build's own files); order does not matter.

  manifest.py diff OLD_MANIFEST.json INPUTS.tsv
      Prints one line per input that differs between a previous build and now.

  manifest.py write OUT_DIR INPUTS.tsv EXTRA.tsv OUTPUT...
      Writes OUT_DIR/manifest.json: the key, every input, the SHA-256 and size
      of each OUTPUT (paths relative to OUT_DIR), and EXTRA.tsv's facts about
      the build (for example which CPython modules could not be built, and
      each runtime's imports: how many WASI functions, and the functions of
      volent:tool/http@0.1.0, a Volent tool's capability and the one other
      import module a runtime may have; runtimes/wasm_imports.py).

  manifest.py verify OUT_DIR
      Exits 0 when OUT_DIR/manifest.json exists and every output it lists has
      the recorded SHA-256; otherwise prints what is wrong and exits 1.

The manifest is deterministic: no timestamps, no host names, no absolute paths
(inputs are versions and hashes), keys sorted.
"""

import hashlib
import json
import pathlib
import sys

FORMAT = 1


def read_tsv(path):
    pairs = {}
    for n, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if "\t" not in line:
            sys.exit(f"manifest: {path}:{n}: expected NAME<TAB>VALUE, got {line!r}")
        name, value = line.split("\t", 1)
        if name in pairs and pairs[name] != value:
            sys.exit(f"manifest: {path}:{n}: input {name!r} given twice")
        pairs[name] = value
    return dict(sorted(pairs.items()))


def build_key(inputs):
    canonical = json.dumps({"format": FORMAT, "inputs": inputs}, sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cmd_key(tsv):
    print(build_key(read_tsv(tsv)))


def cmd_diff(old_manifest, tsv):
    try:
        old = json.loads(pathlib.Path(old_manifest).read_text(encoding="utf-8"))["inputs"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"previous manifest unreadable ({exc}); cannot say what changed")
        return
    new = read_tsv(tsv)
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if before is None:
            print(f"new input {name} = {after}")
        elif after is None:
            print(f"input {name} dropped (was {before})")
        else:
            print(f"input {name} changed: {before} -> {after}")


def cmd_write(out_dir, tsv, extra_tsv, outputs):
    out_dir = pathlib.Path(out_dir)
    inputs = read_tsv(tsv)
    manifest = {
        "format": FORMAT,
        "key": build_key(inputs),
        "inputs": inputs,
        "build": read_tsv(extra_tsv),
        "outputs": {
            rel: {"sha256": sha256_file(out_dir / rel), "bytes": (out_dir / rel).stat().st_size}
            for rel in sorted(outputs)
        },
    }
    tmp = out_dir / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(out_dir / "manifest.json")


def cmd_verify(out_dir):
    out_dir = pathlib.Path(out_dir)
    try:
        manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
        outputs = manifest["outputs"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"no usable manifest in {out_dir}: {exc}")
        return 1
    bad = 0
    for rel, want in sorted(outputs.items()):
        path = out_dir / rel
        if not path.is_file():
            print(f"{rel}: missing")
            bad += 1
        elif sha256_file(path) != want["sha256"]:
            print(f"{rel}: SHA-256 differs from the manifest")
            bad += 1
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "key":
        cmd_key(argv[2])
    elif len(argv) == 4 and argv[1] == "diff":
        cmd_diff(argv[2], argv[3])
    elif len(argv) >= 5 and argv[1] == "write":
        cmd_write(argv[2], argv[3], argv[4], argv[5:])
    elif len(argv) == 3 and argv[1] == "verify":
        return cmd_verify(argv[2])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
