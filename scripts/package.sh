#!/usr/bin/env bash
# Builds the self-contained release bundle of a finished build:
#
#   ampoule-<version>-linux-<arch>.tar.gz
#     ampoule-<version>-linux-<arch>/
#       bin/ampoule, bin/ampoule-verify
#       share/ampoule/ampoule.kernel   (found by `ampoule` beside its bin/)
#       adapters/                      (TypeScript sources, package.json, lock file, .npmrc)
#       docs/                          (the Markdown docs)
#       README.md                      (what is inside, the Debian 12 runtime packages)
#       check.sh                       (checks SHA256SUMS: prints `bundle OK` or the bad files)
#       SHA256SUMS                     (of every other file)
#
#   scripts/package.sh [--build DIR] [--kernel K] [-o OUT_DIR]
#
# Defaults: --build build/, --kernel DIR/share/ampoule/ampoule.kernel, -o the
# current folder. <version> is `git describe --tags --always --dirty` (the
# short commit hash when there is no tag; `-dirty` when the tree has
# uncommitted changes, since the binaries may then not be the commit's).
#
# The tar is deterministic, so the same inputs give the same bundle bytes:
# names sorted, every mtime the commit's time, owner and group 0, modes 0755
# (programs and folders) or 0644, GNU format, gzip without name or time.
# Runtime packages come from `ldd` on the binaries mapped through `dpkg -S`,
# so the README lists what these binaries actually link.
#
# Prints the bundle's path on stdout; errors name the missing input, exit 1
# (exit 2 for a usage error).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { printf 'package.sh: error: %s\n' "$*" >&2; exit 1; }
usage() { echo "usage: scripts/package.sh [--build DIR] [--kernel K] [-o OUT_DIR]" >&2; exit 2; }

BUILD="$ROOT/build" KERNEL="" OUT="$PWD"
while (($#)); do
  case "$1" in
    --build) [[ $# -ge 2 ]] || usage; BUILD="$2"; shift 2 ;;
    --kernel) [[ $# -ge 2 ]] || usage; KERNEL="$2"; shift 2 ;;
    -o) [[ $# -ge 2 ]] || usage; OUT="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "package.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$KERNEL" ]] || KERNEL="$BUILD/share/ampoule/ampoule.kernel"

# Inputs, each checked with a message that says how to make it.
[[ -d "$BUILD" ]] || die "build folder '$BUILD' not found; build with: cmake -S . -B build -G Ninja && ninja -C build ampoule ampoule-verify"
for prog in ampoule ampoule-verify; do
  [[ -x "$BUILD/bin/$prog" ]] || die "'$BUILD/bin/$prog' not found; build it with: ninja -C '$BUILD' $prog"
done
[[ -f "$KERNEL" ]] || die "kernel '$KERNEL' not found; build it with scripts/build-kernel.sh or pass --kernel K"
for tool in git tar gzip sha256sum ldd dpkg; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed"
done
git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null || die "'$ROOT' is not a git checkout with a commit"
mkdir -p "$OUT" || die "cannot create output folder '$OUT'"
OUT="$(cd "$OUT" && pwd)"

export LC_ALL=C TZ=UTC
umask 022
VERSION="$(git -C "$ROOT" describe --tags --always --dirty)"
MTIME="$(git -C "$ROOT" log -1 --format=%ct)"
NAME="ampoule-$VERSION-linux-$(uname -m)"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/ampoule-package-XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
B="$STAGE/$NAME"
mkdir -p "$B/bin" "$B/share/ampoule"

install -m 0755 "$BUILD/bin/ampoule" "$BUILD/bin/ampoule-verify" "$B/bin/"
install -m 0644 "$KERNEL" "$B/share/ampoule/ampoule.kernel"

# The committed files only (never node_modules, dist or local leftovers), as
# they are in the working tree.
copy_tracked() {
  local f
  while IFS= read -r -d '' f; do
    [[ -f "$ROOT/$f" ]] || continue
    mkdir -p "$B/$(dirname "$f")"
    install -m 0644 "$ROOT/$f" "$B/$f"
  done < <(git -C "$ROOT" ls-files -z -- "$@")
}
copy_tracked adapters ':!adapters/.gitignore'
copy_tracked 'docs/*.md'
[[ -f "$B/adapters/package.json" && -f "$B/adapters/package-lock.json" ]] || die "adapters/package.json or package-lock.json is not committed"
[[ -f "$B/docs/quickstart.md" ]] || die "docs/quickstart.md is not committed"

# Debian packages the binaries load, from the libraries ldd resolves.
runtime_packages() {
  local lib real pkg
  ldd "$B/bin/ampoule" "$B/bin/ampoule-verify" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    while read -r lib; do
      real="$(readlink -f "$lib")"
      pkg="$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null)" ||
        die "no Debian package owns $lib (needed by the binaries)"
      echo "${pkg%%:*}"
    done | sort -u
}
PACKAGES_LIST="$(runtime_packages)"
[[ -n "$PACKAGES_LIST" ]] || die "ldd found no libraries for the binaries"
mapfile -t PACKAGES <<<"$PACKAGES_LIST"

cat >"$B/README.md" <<EOF
# Ampoule $VERSION (linux-$(uname -m))

Sealed code runs with signed receipts. This folder is self-contained: \`bin/ampoule\` finds the
kernel at \`share/ampoule/ampoule.kernel\` beside it (or wherever \`AMPOULE_KERNEL\` points).

| path | what |
|---|---|
| \`bin/ampoule\` | runs programs sealed, makes keys, serves MCP (\`bin/ampoule --help\`) |
| \`bin/ampoule-verify\` | checks a receipt, and with \`--replay\` runs it again |
| \`share/ampoule/ampoule.kernel\` | the kernel every receipt pins (engine and guest runtimes) |
| \`adapters/\` | the TypeScript adapters for agent SDKs (\`npm ci && npx tsc -p .\`) |
| \`docs/\` | the documentation; start with \`docs/quickstart.md\` |
| \`check.sh\` | checks every file against \`SHA256SUMS\` |

## Runtime requirements (Debian 12)

\`\`\`sh
sudo apt-get install ${PACKAGES[*]}
\`\`\`

$(printf -- '- %s\n' "${PACKAGES[@]}")

The adapters also need Node.js 20 or newer with npm.

## Check and try

\`\`\`sh
./check.sh                                   # bundle OK
bin/ampoule keygen -o agent.key
echo 'print("hello")' > hello.py
bin/ampoule run hello.py --key agent.key -o receipt.json
bin/ampoule-verify receipt.json --key agent.key.pub --kernel share/ampoule/ampoule.kernel --program hello.py
\`\`\`
EOF

cat >"$B/check.sh" <<'EOF'
#!/bin/sh
# Checks this bundle against SHA256SUMS: prints `bundle OK` (exit 0), or the
# files that are changed, missing or not listed (exit 1).
cd "$(dirname "$0")" || exit 1
[ -f SHA256SUMS ] || { echo "bundle BAD: SHA256SUMS is missing"; exit 1; }
bad=$(sha256sum -c --quiet SHA256SUMS 2>/dev/null | sed -n 's/: FAILED.*$//p')
listed=$(sed 's/^[0-9a-f]*  //' SHA256SUMS)
extra=$(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
        while IFS= read -r f; do printf '%s\n' "$listed" | grep -qxF -- "$f" || echo "$f"; done)
if [ -z "$bad" ] && [ -z "$extra" ]; then
  echo "bundle OK"
  exit 0
fi
[ -n "$bad" ] && printf '%s\n' "$bad" | sed 's/^/bundle BAD: changed or missing: /'
[ -n "$extra" ] && printf '%s\n' "$extra" | sed 's/^/bundle BAD: not in SHA256SUMS: /'
exit 1
EOF
chmod 0755 "$B/check.sh"

(cd "$B" && find . -type f | sed 's|^\./||' | sort | xargs -d '\n' sha256sum) >"$STAGE/sums"
mv "$STAGE/sums" "$B/SHA256SUMS"
chmod 0644 "$B/SHA256SUMS"
find "$B" -type d -exec chmod 0755 {} +

TARBALL="$OUT/$NAME.tar.gz"
tar -C "$STAGE" --sort=name --format=gnu --mtime="@$MTIME" --owner=0 --group=0 --numeric-owner \
    -cf - "$NAME" | gzip -n -9 >"$TARBALL.tmp"
mv "$TARBALL.tmp" "$TARBALL"
echo "$TARBALL"
