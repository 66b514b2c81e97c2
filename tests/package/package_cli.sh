#!/usr/bin/env bash
# The release bundle of scripts/package.sh, used the way a downloader would:
# packaged twice into temporary folders (the same bytes both times), unpacked
# into an empty folder, checked with its own check.sh (`bundle OK`), then,
# from inside it with a clean environment (`env -i`, no AMPOULE_KERNEL, cwd
# outside the repository), the command-line part of docs/quickstart.md: a
# key, a run of a tiny program with a receipt, ampoule-verify VERIFIED and
# --replay REPLAY OK on the bundle's own kernel. Then one file of a second
# unpacked copy is changed and check.sh must fail naming it, and a missing
# kernel must be a clear packaging error.
#
#   tests/package/package_cli.sh --ampoule BIN [--kernel K]
#
# The build folder is BIN's folder's parent; the kernel is --kernel K, else
# AMPOULE_KERNEL, else BUILD/share/ampoule/ampoule.kernel. Prints `ok`/`FAIL`
# per check and `package_cli: N passed, N failed`; exit 1 on any failure;
# `skipped: REASON` (exit 0) without a kernel.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
AMPOULE="" KERNEL="${AMPOULE_KERNEL:-}"
while (($#)); do
  case "$1" in
    --ampoule) AMPOULE="${2:-}"; shift 2 || break ;;
    --kernel) KERNEL="${2:-}"; shift 2 || break ;;
    *) AMPOULE=""; break ;;
  esac
done
if [[ -z "$AMPOULE" ]]; then
  echo "usage: $0 --ampoule BIN [--kernel K]" >&2
  exit 2
fi
[[ -x "$AMPOULE" ]] || { echo "skipped: ampoule binary $AMPOULE not found"; exit 0; }
BUILD="$(cd "$(dirname "$AMPOULE")/.." && pwd)"
[[ -n "$KERNEL" ]] || KERNEL="$BUILD/share/ampoule/ampoule.kernel"
if [[ ! -f "$KERNEL" ]]; then
  echo "skipped: no kernel at $KERNEL; build one with scripts/build-kernel.sh, or pass --kernel K or set AMPOULE_KERNEL"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ampoule-package-test-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
show() { sed 's/^/  /' "$1" | head -20; }
finish() {
  echo "package_cli: $passed passed, $failed failed"
  ((failed == 0)) || exit 1
  exit 0
}

# Packaging, twice: the second bundle must be byte for byte the first.
mkdir -p "$WORK/out1" "$WORK/out2"
if bash "$ROOT/scripts/package.sh" --build "$BUILD" --kernel "$KERNEL" -o "$WORK/out1" >"$WORK/pkg.out" 2>"$WORK/pkg.err"; then
  ok "package.sh makes a bundle"
else
  fail "package.sh failed:"; show "$WORK/pkg.err"; finish
fi
TARBALL="$(cat "$WORK/pkg.out")"
name="$(basename "$TARBALL")"
if [[ "$name" =~ ^ampoule-.+-linux-[a-z0-9_]+\.tar\.gz$ && -f "$TARBALL" ]]; then
  ok "bundle name $name"
else
  fail "bundle name '$name' is not ampoule-VERSION-linux-ARCH.tar.gz, or no such file"
fi
bash "$ROOT/scripts/package.sh" --build "$BUILD" --kernel "$KERNEL" -o "$WORK/out2" >/dev/null 2>"$WORK/pkg2.err"
if cmp -s "$TARBALL" "$WORK/out2/$name"; then
  ok "same inputs give the same bundle bytes"
else
  fail "a second packaging gave different bytes"; show "$WORK/pkg2.err"
fi

# Unpacked into an empty folder: one top folder with everything inside.
mkdir "$WORK/a"
tar -xzf "$TARBALL" -C "$WORK/a"
top=("$WORK/a"/*)
if [[ ${#top[@]} -eq 1 && -d "${top[0]}" ]]; then
  B="${top[0]}"; ok "one top folder $(basename "$B")"
else
  fail "the bundle does not hold exactly one top folder"; finish
fi
missing=()
for p in bin/ampoule bin/ampoule-verify share/ampoule/ampoule.kernel adapters/package.json \
         adapters/package-lock.json adapters/.npmrc adapters/src/index.ts docs/quickstart.md \
         README.md SHA256SUMS check.sh; do
  [[ -f "$B/$p" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then ok "bundle holds binaries, kernel, adapters, docs, README, sums"; else fail "missing from the bundle: ${missing[*]}"; fi
if [[ -z "$(find "$B" -name node_modules -o -name dist)" ]]; then ok "no node_modules or dist"; else fail "node_modules or dist in the bundle"; fi
if grep -q libsodium23 "$B/README.md" && grep -q libseccomp2 "$B/README.md"; then
  ok "README lists the runtime packages"
else
  fail "README does not list libsodium23 and libseccomp2"
fi
out="$("$B/check.sh" 2>&1)"
if [[ $? -eq 0 && "$out" == "bundle OK" ]]; then ok "check.sh: bundle OK"; else fail "check.sh on a fresh bundle said: $out"; fi

# The quickstart's command line, from inside the bundle, clean environment.
cat >"$B/hello.py" <<'EOF'
print("hello from the bundle")
EOF
clean() { (cd "$B" && env -i PATH=/usr/bin:/bin HOME="$WORK" "$@"); }
expect() {  # expect NAME WANT_RC REGEX CMD...
  local what="$1" want="$2" re="$3"; shift 3
  local out rc
  out="$(clean "$@" 2>"$WORK/err")"; rc=$?
  if [[ $rc -eq $want && "$out" =~ $re ]]; then
    ok "$what"
  else
    fail "$what: exit $rc (want $want), stdout: ${out:0:300}"; show "$WORK/err"
  fi
}
expect "kernel path is the bundle's" 0 "share/ampoule/ampoule.kernel$" bin/ampoule kernel path
expect "keygen" 0 "" bin/ampoule keygen -o k
expect "run with a receipt" 0 "hello from the bundle" bin/ampoule run hello.py --key k -o r.json
expect "ampoule-verify VERIFIED" 0 "^VERIFIED" \
  bin/ampoule-verify r.json --key k.pub --kernel share/ampoule/ampoule.kernel --program hello.py
expect "ampoule-verify --replay REPLAY OK" 0 "^REPLAY OK" \
  bin/ampoule-verify --replay r.json --key k.pub --kernel share/ampoule/ampoule.kernel --program hello.py

# A second copy with one changed file: check.sh must fail and name it.
mkdir "$WORK/b"
tar -xzf "$TARBALL" -C "$WORK/b"
C="$(echo "$WORK/b"/*)"
printf 'x' >>"$C/docs/gate.md"
out="$("$C/check.sh" 2>&1)"; rc=$?
if [[ $rc -eq 1 && "$out" == *docs/gate.md* && "$out" != *"bundle OK"* ]]; then
  ok "check.sh names the changed file"
else
  fail "check.sh on a changed docs/gate.md: exit $rc, said: $out"
fi

# A missing input is a clear error.
out="$(bash "$ROOT/scripts/package.sh" --build "$BUILD" --kernel "$WORK/no.kernel" -o "$WORK/out3" 2>&1)"; rc=$?
if [[ $rc -eq 1 && "$out" == *"kernel '$WORK/no.kernel' not found"* ]]; then
  ok "missing kernel: clear error"
else
  fail "missing kernel: exit $rc, said: $out"
fi

finish
