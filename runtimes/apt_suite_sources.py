#!/usr/bin/env python3
"""Prints deb822 `deb-src` entries for another suite of this machine's own archives.

Usage: apt_suite_sources.py --codename RELEASE --suite SUITE [--apt-etc DIR] [--exclude FILE]

Reads the machine's apt sources in both formats (one-line /etc/apt/sources.list
and sources.list.d/*.list, deb822 sources.list.d/*.sources), takes every enabled
`deb` entry whose suite is exactly RELEASE (the release itself, not -updates or
-security, which have no counterpart to derive), and prints one `deb-src` entry
per distinct archive with SUITE in place of RELEASE: same URIs, components and
Signed-By. No archive address is written anywhere but in the output, which
comes from the machine. Exits 1 with a message when no entry qualifies.
"""

import argparse
import pathlib
import sys


def deb822_stanzas(text):
    """Yields each stanza as {lowercase field: value}; continuation lines are kept."""
    fields, last = {}, None
    for line in text.splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if fields:
                yield fields
            fields, last = {}, None
        elif line[0] in " \t" and last:
            fields[last] += "\n" + line
        elif ":" in line:
            name, value = line.split(":", 1)
            last = name.strip().lower()
            fields[last] = value.strip()


def from_deb822(text):
    for f in deb822_stanzas(text):
        if f.get("enabled", "yes").lower() == "no":
            continue
        if "deb" not in f.get("types", "").split():
            continue
        yield (f.get("uris", "").split(), f.get("suites", "").split(),
               f.get("components", "").split(), f.get("signed-by", ""))


def from_one_line(text):
    for raw in text.splitlines():
        words = raw.split("#", 1)[0].split()
        if not words or words[0] != "deb":
            continue
        words = words[1:]
        signed = ""
        if words and words[0].startswith("["):
            opts = []
            while words:
                word = words.pop(0)
                opts.append(word.strip("[]"))
                if word.endswith("]"):
                    break
            for opt in opts:
                if opt.startswith("signed-by="):
                    signed = opt.split("=", 1)[1]
        if len(words) >= 2:
            yield [words[0]], [words[1]], words[2:], signed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codename", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--apt-etc", default="/etc/apt", type=pathlib.Path)
    ap.add_argument("--exclude", action="append", default=[], type=pathlib.Path,
                    help="a sources file to ignore (the one this output goes to)")
    args = ap.parse_args()

    files = [args.apt_etc / "sources.list"]
    files += sorted((args.apt_etc / "sources.list.d").glob("*.list"))
    files += sorted((args.apt_etc / "sources.list.d").glob("*.sources"))
    excluded = {p.resolve() for p in args.exclude}

    seen, out = set(), []
    for path in files:
        if not path.is_file() or path.resolve() in excluded:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        entries = from_deb822(text) if path.suffix == ".sources" else from_one_line(text)
        for uris, suites, comps, signed in entries:
            if args.codename not in suites or not uris:
                continue
            key = (tuple(uris), tuple(comps), signed)
            if key in seen:
                continue
            seen.add(key)
            stanza = ["Types: deb-src", "URIs: " + " ".join(uris), "Suites: " + args.suite]
            if comps:
                stanza.append("Components: " + " ".join(comps))
            if signed:  # a file name, or an inline key on continuation lines
                stanza.append("Signed-By:" + ("" if signed.startswith("\n") else " ") + signed)
            out.append("\n".join(stanza))
    if not out:
        sys.exit(f"apt_suite_sources: no enabled 'deb' entry for suite '{args.codename}' "
                 f"in {args.apt_etc}; cannot tell which archive carries '{args.suite}'")
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
