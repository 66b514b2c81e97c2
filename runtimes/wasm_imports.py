#!/usr/bin/env python3
"""Prints how many functions a WebAssembly module imports from WASI preview 1.

Usage: wasm_imports.py MODULE.wasm [--list]

The count (or, with --list, the names) is what a host must provide to run the
module; scripts/build-runtimes.sh records it in the manifest.
"""
import sys

WASI = "wasi_snapshot_preview1"


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


def imports(data):
    if data[:4] != b"\0asm":
        sys.exit("wasm_imports: not a WebAssembly module")
    r = Reader(data, 8)
    while r.pos < len(data):
        section, size = r.byte(), r.leb()
        end = r.pos + size
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
                if kind == 0:
                    yield module, field
        r.pos = end


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        names = [field for module, field in imports(f.read()) if module == WASI]
    if sys.argv[2:] == ["--list"]:
        print("\n".join(names))
    else:
        print(len(names))


if __name__ == "__main__":
    main()
