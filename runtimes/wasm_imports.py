#!/usr/bin/env python3
"""Prints how many functions a WebAssembly module imports from WASI preview 1.

Usage: wasm_imports.py MODULE.wasm [--list | --tool | --exports]

The count (or, with --list, the names) is what a host must provide to run the
module, together with, listed by --tool, the functions it imports from a Volent
tool's capability module volent:tool/http@0.1.0 (wit/volent-tool.wit): the one
import module beyond WASI the runtimes have. Any import from another module is
an error (exit status 1), so a build that picked one up fails. With
--exports, the names the module exports, in order, one a line (for the
runtimes: memory, _initialize, ampoule_init, ampoule_main).
scripts/build-runtimes.sh records all of them in the manifest.
"""
import sys

WASI = "wasi_snapshot_preview1"
TOOL = "volent:tool/http@0.1.0"


class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def leb(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return result

    def name(self):
        n = self.leb()
        self.pos += n
        return self.data[self.pos - n:self.pos].decode("utf-8")

    def limits(self):
        flags = self.byte()
        self.leb()
        if flags & 1:
            self.leb()


def sections(data):
    """Yields (section id, Reader positioned at its contents, end offset)."""
    if data[:4] != b"\0asm":
        sys.exit("wasm_imports: not a WebAssembly module")
    r = Reader(data, 8)
    while r.pos < len(data):
        section, size = r.byte(), r.leb()
        end = r.pos + size
        yield section, Reader(data, r.pos), end
        r.pos = end


def exports(data):
    for section, r, _end in sections(data):
        if section == 7:
            for _ in range(r.leb()):
                name = r.name()
                r.byte()  # kind
                r.leb()   # index
                yield name


def imports(data):
    for section, r, _end in sections(data):
        if section == 2:
            for _ in range(r.leb()):
                module, field, kind = r.name(), r.name(), r.byte()
                if kind == 0:      # function: type index
                    r.leb()
                elif kind == 1:    # table: reference type, limits
                    r.byte()
                    r.limits()
                elif kind == 2:    # memory: limits
                    r.limits()
                elif kind == 3:    # global: value type, mutability
                    r.pos += 2
                yield module, field, kind


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if sys.argv[2:] == ["--exports"]:
        print("\n".join(exports(data)))
        return
    found = list(imports(data))
    for module, field, kind in found:
        if module not in (WASI, TOOL) or kind != 0:
            what = {0: "function", 1: "table", 2: "memory", 3: "global"}.get(kind, f"kind {kind}")
            sys.exit(f"wasm_imports: {sys.argv[1]} imports the {what} {module}.{field}; "
                     f"a runtime may import only functions of {WASI} and {TOOL}")
    wasi = [field for module, field, _kind in found if module == WASI]
    if sys.argv[2:] == ["--list"]:
        print("\n".join(wasi))
    elif sys.argv[2:] == ["--tool"]:
        print("\n".join(field for module, field, _kind in found if module == TOOL))
    elif sys.argv[2:] == []:
        print(len(wasi))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
