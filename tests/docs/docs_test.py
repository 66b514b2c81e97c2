#!/usr/bin/env python3
"""The repository's docs checked against the code and the build.

Usage: docs_test.py CHECK [BUILD_DIR]
  citations  no tracked file cites a specification outside the repository
             (the docs stand alone: they cite the repository's own pages)
  status     README.md's status table: each row "works today" or "not yet",
             each "works today" row links pages that exist, none of which
             calls the capability "not yet" in its opening
  links      docs/architecture.md's dependency lists equal the build's
             target_link_libraries (BUILD_DIR/library-links.txt, written at
             configure time by the root CMakeLists.txt), library by library
  layers     src/core names and includes neither product; src/ampoule
             includes nothing of Volent
Prints "ok: CHECK" or one line per problem and exits 1.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tracked_files():
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in out.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and not path.is_symlink():
            yield name, path


def read_text(path):
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


# The contract's name followed by a section number (with or without ".md"),
# or a path into the shared contract or product pages: those live outside
# the repository. Built from parts so that this file does not match itself.
OUTSIDE = re.compile(r"\b" + "SP" + r"EC(?:\.md)?\s+[A-Z][0-9]+\b|shared/" + "SP" + r"EC|shared/" + "prod" + "uct/")


def check_citations():
    problems = []
    for name, path in tracked_files():
        text = read_text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = OUTSIDE.search(line)
            if match:
                problems.append(f"{name}:{number}: cites '{match.group(0)}', a document outside the "
                                "repository: cite the repository's own page (docs/...) instead")
    return problems


ROW = re.compile(r"^\|(?P<what>.*)\|(?P<product>[^|]*)\|(?P<status>[^|]*)\|\s*$")
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


def status_rows():
    text = (ROOT / "README.md").read_text()
    section = text.split("## What works today", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        match = ROW.match(line)
        if not match or set(match.group("what").strip()) <= set("-") or match.group("what").strip() == "capability":
            continue
        yield match.group("what").strip(), match.group("status").strip()


def check_status():
    problems = []
    rows = list(status_rows())
    if not rows:
        return ["README.md: no status table under '## What works today'"]
    for what, status in rows:
        label = what[:60]
        if not (status.startswith("works today") or status == "not yet"):
            problems.append(f"README.md: '{label}': status '{status}' is neither 'works today' nor 'not yet'")
            continue
        links = LINK.findall(what)
        if status.startswith("works today") and not links:
            problems.append(f"README.md: '{label}': a capability that works today links the page that documents it")
        for link in links:
            page = ROOT / link
            if not page.is_file():
                problems.append(f"README.md: '{label}': links {link}, which does not exist")
                continue
            if status.startswith("works today"):
                # A page's opening may point at its list of what is missing
                # ("What is not built yet is listed at the end"), but must not
                # call what the row claims planned.
                opening = " ".join(page.read_text().split("\n## ", 1)[0].split())
                for sentence in re.split(r"(?<=[.!?])\s+", opening):
                    if re.match(r"what is not", sentence, re.I):
                        continue
                    if re.search(r"\bplanned\b|\bnot (?:yet )?(?:built|implemented|available)\b|\bnot yet\b",
                                 sentence, re.I):
                        problems.append(f"README.md: '{label}' works today, but {link} says in its opening: "
                                        f"'{sentence[:100]}'")
    return problems


DEPENDENCY = re.compile(r"^(?P<lib>(?:core|amp|volent)[A-Za-z0-9_]*)\s+->\s*(?P<links>.*)$")


def documented_links():
    text = (ROOT / "docs" / "architecture.md").read_text()
    documented = {}
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for line in block.splitlines():
            match = DEPENDENCY.match(line.strip())
            if match:
                links = match.group("links").strip()
                names = set(re.split(r"[,\s]+", links)) - {""}
                documented[match.group("lib")] = set() if names == {"(nothing)"} else names
    return documented


def check_links(build_dir):
    built_file = pathlib.Path(build_dir) / "library-links.txt"
    if not built_file.is_file():
        return [f"{built_file}: missing (configure the build folder with this checkout's CMakeLists.txt)"]
    built = {}
    for line in built_file.read_text().splitlines():
        lib, _, links = line.partition(":")
        built[lib.strip()] = set(links.split())
    documented = documented_links()
    problems = []
    for lib in sorted(set(built) | set(documented)):
        if lib not in documented:
            problems.append(f"docs/architecture.md: library {lib} (in the build) has no dependency line")
        elif lib not in built:
            problems.append(f"docs/architecture.md: library {lib} is documented but the build has no such library")
        elif built[lib] != documented[lib]:
            missing = " ".join(sorted(built[lib] - documented[lib])) or "-"
            extra = " ".join(sorted(documented[lib] - built[lib])) or "-"
            problems.append(f"docs/architecture.md: {lib}: the build links but the page omits: {missing}; "
                            f"the page lists but the build does not link: {extra}")
    return problems


def source_files(folder):
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix in (".h", ".cc"):
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def check_layers():
    problems = []
    for name, text in source_files("src/core"):
        for number, line in enumerate(text.splitlines(), 1):
            if re.match(r'\s*#\s*include\s+"(ampoule|volent)/', line):
                problems.append(f"{name}:{number}: the core includes a product header")
            elif re.search(r"\b(ampoule|volent)::|namespace\s+(ampoule|volent)\b", line):
                problems.append(f"{name}:{number}: the core names a product's namespace")
    for name, text in source_files("src/ampoule"):
        for number, line in enumerate(text.splitlines(), 1):
            if re.match(r'\s*#\s*include\s+"volent/', line):
                problems.append(f"{name}:{number}: Ampoule includes a Volent header")
    return problems


def main(argv):
    checks = {"citations": check_citations, "status": check_status, "layers": check_layers}
    if len(argv) >= 2 and argv[1] == "links" and len(argv) == 3:
        problems = check_links(argv[2])
    elif len(argv) == 2 and argv[1] in checks:
        problems = checks[argv[1]]()
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"ok: {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
