#!/usr/bin/env bash
# Builds the guest runtimes for wasm32-wasi from Debian source packages:
#   python.wasm + lib/python311.zip   CPython 3.11 (Debian 12's python3.11) with zlib,
#                                      SQLite, bzip2 and liblzma (sqlite3, bz2, lzma)
#   js.wasm                            QuickJS (Debian's quickjs source package)
#   share/zoneinfo.tar                 Debian's tzdata binary package, its zoneinfo tree
#   test/cpython-tests.zip             the CPython regression tests the project runs
#                                      in the guest (tests/run/cpython_stdlib_test.py); not
#                                      part of the kernel
# Both are WASI reactors with our entry points (runtimes/python/ampoule_main.c,
# runtimes/quickjs/main.c): exports memory, _initialize, ampoule_init and
# ampoule_main (docs/runtimes.md describes the ABI). Both import WASI preview 1
# and, beyond it, only a Volent tool's capability, module
# volent:tool/http@0.1.0 (request, answer; wit/volent-tool.wit); the build
# checks both.
#
# Usage: scripts/build-runtimes.sh [--out DIR] [--jobs N] [--check] [--force]
#   --out DIR   also copy the outputs and their manifest into DIR
#   --jobs N    parallel compile jobs (default: the number of processors)
#   --check     run the smoke tests (runtimes/test/) under Node's node:wasi
#   --force     rebuild even when the cache holds this build
#
# Progress goes to stderr; the last line on stdout is the directory holding
# the outputs, so `dir=$(bash scripts/build-runtimes.sh | tail -1)` finds them.
#
# Sources are fetched at build time with `apt-get source PACKAGE=VERSION`, the
# exact versions pinned in runtimes/pins.env; nothing third-party lives in the
# repository. Compilers: Debian's clang-14, lld-14 and wasi-libc, against a
# sysroot holding nothing but wasi-libc, so no host header can leak in.
#
# Cache: outside the checkout, so every clone on the machine shares it:
#   ${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ampoule}/runtimes/
# ($AMPOULE_RUNTIMES_CACHE, if set, names that runtimes/ directory itself):
#   src/<package>_<version>/   the unpacked source packages, kept between builds
#   build/                     the last build's trees and logs
#   <key>/                     outputs + manifest.json, one directory per build key
#   latest                     the key of the last successful build
# The key hashes every input: source versions, toolchain package versions, the
# flags below and the contents of this script and of runtimes/. With the same
# key the outputs are reused at once (after checking their SHA-256); when the
# key differs from the last build, the script says which inputs changed.
#
# Needs root only when a source package must be fetched: it then writes
# /etc/apt/sources.list.d/ampoule-runtimes-src.sources (derived from the
# machine's own apt sources) and runs `apt-get update`.
#
# Exit status: 0 built or up to date (and checks passed); 1 build or check
# failed; 2 usage error or missing tool.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly RT="$ROOT/runtimes"
CACHE_ROOT="${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?HOME is not set; set AMPOULE_CACHE_DIR}/.cache}/ampoule}"
readonly CACHE="${AMPOULE_RUNTIMES_CACHE:-$CACHE_ROOT/runtimes}"
readonly SRC="$CACHE/src"
readonly BUILD="$CACHE/build"
readonly LOGS="$BUILD/logs"
readonly APT_FILE=/etc/apt/sources.list.d/ampoule-runtimes-src.sources

# shellcheck source=/dev/null
source "$RT/pins.env"

# --- Flags (part of the build key) -------------------------------------------
readonly WASI_TARGET=wasm32-wasi
# Paths under the cache are recorded relative to it, so outputs do not depend
# on where the repository is checked out.
readonly PREFIX_MAP="-ffile-prefix-map=$CACHE/="
readonly ZLIB_CFLAGS_USED="-O2 $PREFIX_MAP"
readonly BZIP2_CFLAGS_USED="-O2 -D_FILE_OFFSET_BITS=64 $PREFIX_MAP"
readonly XZ_CFLAGS_USED="-O2 $PREFIX_MAP"
readonly XZ_CONFIGURE_ARGS="--disable-shared --enable-static --disable-threads --disable-xz --disable-xzdec \
--disable-lzmadec --disable-lzmainfo --disable-lzma-links --disable-scripts --disable-doc --disable-nls"
# SQLite: Debian's feature set (debian/rules) for one single-threaded process
# on our own OS layer (runtimes/python/sqlite_wasi_vfs.c), without loadable
# extensions (a guest has no dynamic linker).
readonly SQLITE_CFLAGS_USED="-O2 -fno-strict-aliasing $PREFIX_MAP -DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 \
-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS3 \
-DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE=1 \
-DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_LIKE_DOESNT_MATCH_BLOBS \
-DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_MAX_VARIABLE_NUMBER=250000"
# CPython's configure adds its own -O3 -fwrapv -Wall; -g is left out (the
# binary is stripped anyway) and paths are mapped as above.
readonly PY_OPT="-DNDEBUG -fwrapv -O3 -Wall"
readonly PY_CFLAGS_USED="$PREFIX_MAP"
readonly PY_PREFIX=/usr/local
# The string hash: configure cannot run its alignment probe when cross
# compiling, assumes aligned access is required and falls back to FNV.
# WebAssembly has no such requirement, and with SipHash-1-3 (native CPython's
# algorithm) a str hash is the low 32 bits of the native one under
# PYTHONHASHSEED=0, so sets of strings iterate in the same order as natively.
readonly PY_CONFIGURE_ARGS="--disable-shared --disable-ipv6 --disable-test-modules --with-hash-algorithm=siphash13"
# python.wasm is linked by runtimes/python/reactor.mk from the objects and
# flags of CPython's own python.wasm rule, plus these (for wasm-ld the last
# stack size given wins over configure's 512 KiB). 4 MiB of stack: the
# deepest C recursion CPython guards (generators, map, __init__ through type
# calls) takes about 600 bytes per level, so RecursionError at the default
# limit of 1000 comes with room to spare, and a program that raises the
# limit gets about 6500 levels before the stack ends (docs/runtimes.md).
readonly PY_REACTOR_LDFLAGS="-mexec-model=reactor -Wl,-z,stack-size=4194304"
readonly QJS_CFLAGS="-O2 -fwrapv -D_GNU_SOURCE -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_GETPID \
-include malloc.h -include wasi_compat.h -Wno-deprecated-declarations $PREFIX_MAP"
readonly QJS_LDFLAGS="-mexec-model=reactor -Wl,-z,stack-size=2097152 -Wl,--stack-first"
readonly QJS_LIBS="-lwasi-emulated-signal -lwasi-emulated-getpid -lm"
readonly WASM_OPT_FLAGS="-O2 --strip-debug --strip-producers"

JOBS="$(nproc 2>/dev/null || echo 2)"
OUT_DIR=""
INPUTS_TSV=""
CHECK=0
FORCE=0

log() { printf 'runtimes: %s\n' "$*" >&2; }
die() { printf 'runtimes: error: %s\n' "$*" >&2; exit 1; }
usage_error() { printf 'runtimes: %s\n' "$*" >&2; sed -n '2,/^#   --force/p' "${BASH_SOURCE[0]}" >&2; exit 2; }

parse_args() {
  while (($#)); do
    case "$1" in
      --out) [[ $# -ge 2 ]] || usage_error "--out needs a directory"; OUT_DIR="$2"; shift 2 ;;
      --jobs) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs needs a positive number"
              JOBS="$2"; shift 2 ;;
      --check) CHECK=1; shift ;;
      --force) FORCE=1; shift ;;
      -h|--help) sed -n '2,/^#   --force/p' "${BASH_SOURCE[0]}"; exit 0 ;;
      *) usage_error "unknown argument '$1'" ;;
    esac
  done
}

# Runs a long step in a subshell (so `set -e` holds inside it) with its output
# in $LOGS/NAME.log; prints its duration, or the end of the log when it fails.
step() {
  local name="$1" what="$2"; shift 2
  local logf="$LOGS/$name.log" t0=$SECONDS
  log "$what ..."
  ( "$@" ) >"$logf" 2>&1 &
  if ! wait $!; then
    printf 'runtimes: error: %s failed; last lines of %s:\n' "$what" "$logf" >&2
    tail -n 25 "$logf" >&2
    exit 1
  fi
  local took=$((SECONDS - t0))
  log "$what: done in ${took}s"
  printf '%s\t%s\n' "seconds.$name" "$took" >>"$BUILD/timings.tsv"
}

# --- Preflight ---------------------------------------------------------------
readonly TOOL_PACKAGES=(clang-14 lld-14 llvm-14 libclang-rt-14-dev-wasm32 wasi-libc
                        autoconf python3.11 dpkg-dev make pkg-config patch tcl gcc)

deb_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

preflight() {
  local missing=() p
  for p in "${TOOL_PACKAGES[@]}"; do
    [[ -n "$(deb_version "$p")" ]] || missing+=("$p")
  done
  if ((${#missing[@]})); then
    printf 'runtimes: missing Debian packages: %s\n' "${missing[*]}" >&2
    printf 'runtimes: install them with: apt-get install -y %s\n' "${missing[*]}" >&2
    exit 2
  fi
  local builtins
  builtins="$(clang-14 --target=$WASI_TARGET -print-libgcc-file-name 2>/dev/null || true)"
  [[ -f "$builtins" ]] || { echo "runtimes: clang-14 has no wasm32 builtins ($builtins); install libclang-rt-14-dev-wasm32" >&2; exit 2; }
  [[ -f /usr/include/wasm32-wasi/stdio.h && -f /usr/lib/wasm32-wasi/libc.a ]] ||
    { echo "runtimes: wasi-libc is not where Debian puts it (/usr/include/wasm32-wasi, /usr/lib/wasm32-wasi)" >&2; exit 2; }
  command -v wasm-opt >/dev/null ||
    log "note: binaryen (wasm-opt) not installed; js.wasm will not be optimised (apt-get install binaryen)"
}

# --- Build key ---------------------------------------------------------------
# Writes every input as NAME<TAB>VALUE to $1.
collect_inputs() {
  local out="$1" p f
  {
    printf 'source.python3.11\t%s\n' "$PYTHON_SRC_VERSION"
    printf 'source.zlib\t%s\n' "$ZLIB_SRC_VERSION"
    printf 'source.sqlite3\t%s\n' "$SQLITE_SRC_VERSION"
    printf 'source.bzip2\t%s\n' "$BZIP2_SRC_VERSION"
    printf 'source.xz-utils\t%s\n' "$XZ_SRC_VERSION"
    printf 'source.quickjs\t%s\n' "$QUICKJS_SRC_VERSION"
    printf 'deb.tzdata.pinned\t%s\n' "$TZDATA_VERSION"
    for p in clang-14 lld-14 llvm-14 libclang-rt-14-dev-wasm32 wasi-libc autoconf python3.11 binaryen tar tcl; do
      printf 'deb.%s\t%s\n' "$p" "$(deb_version "$p" | sed 's/^$/not installed/')"
    done
    printf 'flags.zlib.cflags\t%s\n' "$ZLIB_CFLAGS_USED"
    printf 'flags.bzip2.cflags\t%s\n' "$BZIP2_CFLAGS_USED"
    printf 'flags.xz.cflags\t%s\n' "$XZ_CFLAGS_USED"
    printf 'flags.xz.configure\t%s\n' "$XZ_CONFIGURE_ARGS"
    printf 'flags.sqlite.cflags\t%s\n' "$SQLITE_CFLAGS_USED"
    printf 'flags.python.opt\t%s\n' "$PY_OPT"
    printf 'flags.python.cflags\t%s\n' "$PY_CFLAGS_USED"
    printf 'flags.python.prefix\t%s\n' "$PY_PREFIX"
    printf 'flags.python.configure\t%s\n' "$PY_CONFIGURE_ARGS"
    printf 'flags.python.reactor_ldflags\t%s\n' "$PY_REACTOR_LDFLAGS"
    printf 'flags.quickjs.cflags\t%s\n' "$QJS_CFLAGS"
    printf 'flags.quickjs.ldflags\t%s\n' "$QJS_LDFLAGS $QJS_LIBS"
    printf 'flags.wasm-opt\t%s\n' "$WASM_OPT_FLAGS"
    printf 'file.scripts/build-runtimes.sh\t%s\n' "$(sha256sum "$ROOT/scripts/build-runtimes.sh" | cut -d' ' -f1)"
    # The smoke tests and the apt helper do not shape the outputs, so they stay
    # out of the key.
    (cd "$ROOT" && find runtimes -type f ! -path 'runtimes/test/*' ! -name apt_suite_sources.py \
      ! -name '*.pyc' -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum) | while read -r sum f; do
      printf 'file.%s\t%s\n' "$f" "$sum"
    done
  } | sed 's|'"$CACHE"'/|<cache>/|g' >"$out"
}

# --- Sources -----------------------------------------------------------------
# shellcheck disable=SC1091
release_codename() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }

# True when apt knows source package $1 at exactly version $2.
apt_has_source() {
  local versions
  versions="$(apt-cache showsrc --only-source "$1" 2>/dev/null || true)"
  grep -qx "Version: $2" <<<"$versions"
}

# Makes the pinned source versions known to apt, writing our own sources file
# and running `apt-get update` only when something is missing.
# Every source package the build unpacks, as PACKAGE=VERSION.
pinned_sources() {
  printf '%s\n' "python3.11=$PYTHON_SRC_VERSION" "zlib=$ZLIB_SRC_VERSION" "sqlite3=$SQLITE_SRC_VERSION" \
    "bzip2=$BZIP2_SRC_VERSION" "xz-utils=$XZ_SRC_VERSION" "quickjs=$QUICKJS_SRC_VERSION"
}

all_sources_known() {
  local pkg
  while read -r pkg; do
    apt_has_source "${pkg%%=*}" "${pkg#*=}" || return 1
  done < <(pinned_sources)
}

ensure_apt_sources() {
  all_sources_known && return 0
  [[ $EUID -eq 0 ]] || die "apt does not know the pinned source packages; run once as root (it adds deb-src entries and runs apt-get update)"
  local codename
  codename="$(release_codename)"
  [[ -n "$codename" ]] || die "/etc/os-release names no VERSION_CODENAME"
  # This release's own deb-src entries come from the repository's shared tool.
  if [[ -f "$ROOT/scripts/apt-deb-src.sh" ]]; then
    bash "$ROOT/scripts/apt-deb-src.sh" >/dev/null
  fi
  local text
  text="# deb-src entries for the '$QUICKJS_SRC_SUITE' suite of this machine's own Debian archive,
# written by scripts/build-runtimes.sh (QuickJS source is not in '$codename').
# Derived from the 'deb' entries for '$codename'; rewritten whenever the build
# needs a source package that apt does not know yet.

$(python3 "$RT/apt_suite_sources.py" --codename "$codename" --suite "$QUICKJS_SRC_SUITE" --exclude "$APT_FILE")"
  if [[ ! -f "$APT_FILE" || "$(cat "$APT_FILE")" != "$text" ]]; then
    printf '%s\n' "$text" >"$APT_FILE.tmp" && mv "$APT_FILE.tmp" "$APT_FILE"
    log "wrote $APT_FILE"
  fi
  log "apt-get update ..."
  apt-get update -q >"$LOGS/apt-update.log" 2>&1 || { tail -n 20 "$LOGS/apt-update.log" >&2; die "apt-get update failed"; }
  local pkg ver
  for pkg in $(pinned_sources); do
    ver="${pkg#*=}"
    if ! apt_has_source "${pkg%%=*}" "$ver"; then
      printf 'runtimes: error: the archive does not offer source %s; it offers:\n' "$pkg" >&2
      apt-cache showsrc --only-source "${pkg%%=*}" 2>/dev/null | sed -n 's/^Version: /  /p' >&2
      die "update runtimes/pins.env to one of these"
    fi
  done
}

# Unpacks source package $1 at version $2 into $SRC/$1_$2 (once) and stores
# the path of the unpacked tree in the variable named $3.
source_tree() {
  local pkg="$1" ver="$2" var="$3"
  local dir="$SRC/${pkg}_${ver//:/%}"
  if [[ ! -f "$dir/.complete" ]]; then
    ensure_apt_sources
    rm -rf "$dir" && mkdir -p "$dir"
    log "apt-get source $pkg=$ver ..."
    (cd "$dir" && apt-get source -q --only-source "$pkg=$ver") >"$LOGS/source-$pkg.log" 2>&1 ||
      { tail -n 20 "$LOGS/source-$pkg.log" >&2; die "apt-get source $pkg=$ver failed"; }
    touch "$dir/.complete"
  fi
  local tree
  tree="$(find "$dir" -mindepth 2 -maxdepth 2 -type d -name debian -printf '%h\n' | head -n 1)"
  [[ -n "$tree" ]] || die "no unpacked tree in $dir; delete it and retry"
  printf -v "$var" '%s' "$tree"
}

# Debian's tzdata binary package (architecture-independent) at the pinned
# version, downloaded once into the sources cache; stores the .deb's path in
# the variable named $1.
tzdata_deb() {
  local dir="$SRC/tzdata_${TZDATA_VERSION//:/%}"
  if [[ ! -f "$dir/.complete" ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    log "apt-get download tzdata=$TZDATA_VERSION ..."
    (cd "$dir" && apt-get download -q "tzdata=$TZDATA_VERSION") >"$LOGS/source-tzdata.log" 2>&1 || {
      tail -n 20 "$LOGS/source-tzdata.log" >&2
      apt-cache policy tzdata >&2 || true
      die "apt-get download tzdata=$TZDATA_VERSION failed; update TZDATA_VERSION in runtimes/pins.env to a version listed above"
    }
    touch "$dir/.complete"
  fi
  local debs=("$dir"/tzdata_*.deb)
  [[ -f "${debs[0]}" ]] || die "no tzdata .deb in $dir; delete it and retry"
  printf -v "$1" '%s' "${debs[0]}"
}

dsc_sha256() {
  local pkg="$1" ver="$2"
  sha256sum "$SRC/${pkg}_${ver//:/%}/"*.dsc | cut -d' ' -f1
}

# --- Builds ------------------------------------------------------------------
# A sysroot with nothing but wasi-libc: clang finds its headers and libraries
# there and nowhere else, so host glibc headers cannot leak into a guest.
make_sysroot() {
  local s="$BUILD/sysroot"
  rm -rf "$s" && mkdir -p "$s/include" "$s/lib"
  ln -s /usr/include/wasm32-wasi "$s/include/$WASI_TARGET"
  ln -s /usr/lib/wasm32-wasi "$s/lib/$WASI_TARGET"
}

wasi_cc() { printf 'clang-14 --target=%s --sysroot=%s' "$WASI_TARGET" "$BUILD/sysroot"; }

build_zlib() {
  local tree="$1" work="$BUILD/zlib"
  rm -rf "$work" "$BUILD/zlib-install"
  cp -a "$tree" "$work"
  cd "$work"
  # Debian's rules run zlib's own configure; --static because a guest has no
  # dynamic linker. CHOST names the target so configure does not probe the host.
  CC="$(wasi_cc)" AR=llvm-ar-14 RANLIB=llvm-ranlib-14 CFLAGS="$ZLIB_CFLAGS_USED" CHOST=$WASI_TARGET \
    ./configure --static --prefix="$BUILD/zlib-install"
  make -j"$JOBS" libz.a
  make install
}

build_bzip2() {
  local tree="$1" work="$BUILD/bzip2" inst="$BUILD/bzip2-install"
  rm -rf "$work" "$inst" && cp -a "$tree" "$work" && mkdir -p "$inst/include" "$inst/lib"
  cd "$work"
  # Only the library: its own Makefile's libbz2.a rule (the tools need fork).
  make -j"$JOBS" libbz2.a CC="$(wasi_cc)" AR=llvm-ar-14 RANLIB=llvm-ranlib-14 CFLAGS="$BZIP2_CFLAGS_USED"
  cp bzlib.h "$inst/include/" && cp libbz2.a "$inst/lib/"
}

build_xz() {
  local work="$BUILD/xz" inst="$BUILD/xz-install"
  rm -rf "$inst"
  patched_copy "$1" "$work" "$RT/xz/patches"
  cd "$work"
  # shellcheck disable=SC2086
  CC="$(wasi_cc)" AR=llvm-ar-14 RANLIB=llvm-ranlib-14 CFLAGS="$XZ_CFLAGS_USED" \
    ./configure --host=wasm32-unknown-wasi --build="$(./build-aux/config.guess)" --prefix="$inst" $XZ_CONFIGURE_ARGS
  make -j"$JOBS" -C src/liblzma
  make -C src/liblzma install
}

# SQLite's source package is the full tree: its own tools (tclsh, a host C
# compiler) generate the amalgamation, sqlite3.c, which is then compiled with
# our OS layer into one static library.
build_sqlite() {
  local tree="$1" work="$BUILD/sqlite" inst="$BUILD/sqlite-install"
  rm -rf "$work" "$inst" && mkdir -p "$work/amalgamation" "$inst/include" "$inst/lib"
  (cd "$work/amalgamation" && "$tree/configure" --disable-tcl && make sqlite3.c)
  cd "$work"
  local cc
  cc="$(wasi_cc)"
  # shellcheck disable=SC2086
  $cc $SQLITE_CFLAGS_USED -c amalgamation/sqlite3.c -o sqlite3.o
  # shellcheck disable=SC2086
  $cc $SQLITE_CFLAGS_USED -Wall -Wextra -Iamalgamation -c "$RT/python/sqlite_wasi_vfs.c" -o sqlite_wasi_vfs.o
  llvm-ar-14 crs "$inst/lib/libsqlite3.a" sqlite3.o sqlite_wasi_vfs.o
  cp amalgamation/sqlite3.h amalgamation/sqlite3ext.h "$inst/include/"
}

configure_python() {
  local tree="$1" work="$BUILD/python"
  # As Debian's rules do: regenerate configure from configure.ac (with Debian's patches applied).
  (cd "$tree" && rm -rf autom4te.cache configure && autoconf)
  rm -rf "$work" && mkdir -p "$work" "$BUILD/pkgconfig-empty"
  cd "$work"
  # A relative path to the source tree keeps the build paths that CPython
  # records (VPATH) independent of where the repository is checked out.
  local rel_tree
  rel_tree="$(realpath --relative-to="$work" "$tree")"
  CONFIG_SITE="$tree/Tools/wasm/config.site-wasm32-wasi" \
  CC="$(wasi_cc)" CPP="$(wasi_cc) -E" AR=llvm-ar-14 RANLIB=llvm-ranlib-14 \
  OPT="$PY_OPT" CFLAGS="$PY_CFLAGS_USED" \
  PKG_CONFIG_PATH="" PKG_CONFIG_LIBDIR="$BUILD/pkgconfig-empty" \
  ZLIB_CFLAGS="-I$BUILD/zlib-install/include" ZLIB_LIBS="-L$BUILD/zlib-install/lib -lz" \
  BZIP2_CFLAGS="-I$BUILD/bzip2-install/include" BZIP2_LIBS="-L$BUILD/bzip2-install/lib -lbz2" \
  LIBLZMA_CFLAGS="-I$BUILD/xz-install/include" LIBLZMA_LIBS="-L$BUILD/xz-install/lib -llzma" \
  LIBSQLITE3_CFLAGS="-I$BUILD/sqlite-install/include" LIBSQLITE3_LIBS="-L$BUILD/sqlite-install/lib -lsqlite3" \
    "$rel_tree/configure" \
      --host=wasm32-unknown-wasi --build="$("$tree/config.guess")" \
      --with-build-python=/usr/bin/python3.11 \
      --prefix="$PY_PREFIX" $PY_CONFIGURE_ARGS  # word-split on purpose
  # configure drops a module quietly when its library fails a link probe; for
  # these the guest promises the module, so stop here and say why.
  local m missing=()
  for m in ZLIB _SQLITE3 _BZ2 _LZMA; do
    grep -qx "MODULE_${m}_STATE=yes" Makefile || missing+=("$(tr '[:upper:]' '[:lower:]' <<<"${m#_}")")
  done
  if ((${#missing[@]})); then
    echo "configure did not enable: ${missing[*]} (see $work/config.log)"
    return 1
  fi
}

build_python() {
  local tree="$1"
  cd "$BUILD/python"
  # sys.version carries a build date (Modules/getbuildinfo.c takes DATE and TIME
  # when defined, else __DATE__/__TIME__). Use the source package's changelog
  # date, as Debian's SOURCE_DATE_EPOCH does, so a rebuild is byte-identical.
  local epoch
  epoch="$(dpkg-parsechangelog -l "$tree/debian/changelog" -STimestamp)"
  {
    printf '#define DATE "%s"\n' "$(LC_ALL=C date -u -d "@$epoch" '+%b %e %Y')"
    printf '#define TIME "%s"\n' "$(LC_ALL=C date -u -d "@$epoch" '+%H:%M:%S')"
  } >build-date.h
  # Only getbuildinfo.c uses DATE and TIME. EXTRA_CFLAGS is not in the
  # Makefile, so the sysconfig data (written by the second make, for the zip)
  # does not mention the header.
  # python.wasm as a reactor: CPython's objects and link flags with our entry
  # file instead of Programs/python.o (runtimes/python/reactor.mk). The file is
  # copied into the tree so its path is mapped like every other source path.
  cp "$RT/python/ampoule_main.c" Programs/ampoule_main.c
  make -j"$JOBS" -f Makefile -f "$RT/python/reactor.mk" EXTRA_CFLAGS="-include $BUILD/python/build-date.h" \
    AMPOULE_MAIN=Programs/ampoule_main.c AMPOULE_LDFLAGS="$PY_REACTOR_LDFLAGS" python-reactor.wasm
  make pybuilddir.txt
}

# Lists the stdlib extension modules that configure could not or would not
# build, leaving out CPython's test modules (disabled on purpose).
python_modules_not_built() {
  sed -n 's/^MODULE_\([A-Z0-9_]*\)_STATE=\(missing\|disabled\)$/\1/p' "$BUILD/python/Makefile" |
    tr '[:upper:]' '[:lower:]' | grep -Ev '^(_test|_xxtest|xxlimited)' | LC_ALL=C sort | paste -sd' ' -
}

pack_python() {
  local tree="$1" out="$2"
  local sysconfig
  sysconfig="$(find "$BUILD/python/build" -name '_sysconfigdata_*.py' | head -n 1)"
  [[ -n "$sysconfig" ]] || { echo "no _sysconfigdata_*.py under $BUILD/python/build"; return 1; }
  mkdir -p "$out/lib"
  llvm-strip-14 -o "$out/python.wasm" "$BUILD/python/python-reactor.wasm"
  python3.11 "$RT/python/pack_stdlib.py" --lib "$tree/Lib" --sysconfig "$sysconfig" \
    --source-magic "$tree/Lib/importlib/_bootstrap_external.py" \
    --extra "$RT/python/sitecustomize.py" --extra "$RT/python/volent_tool.py" \
    --map-prefix "$CACHE/=" --prefix "$PY_PREFIX" --out "$out/lib/python311.zip"
  python3.11 "$RT/python/pack_tests.py" --lib-test "$tree/Lib/test" --list "$RT/python/cpython_tests.txt" \
    --out "$out/test/cpython-tests.zip"
}

# Copies the unpacked Debian source $1 to $2 and applies our patches $3/*.patch
# in name order (each says what it fixes and why); the cached source stays as
# Debian ships it.
patched_copy() {
  local tree="$1" copy="$2" patches="$3" p
  rm -rf "$copy" && cp -a "$tree" "$copy"
  for p in "$patches"/*.patch; do
    [[ -f "$p" ]] || continue
    patch -d "$copy" -p1 --batch --forward --quiet <"$p" ||
      die "$(basename "$p") does not apply to $(basename "$tree"); update it for this source version"
  done
}

build_quickjs() {
  local work="$BUILD/quickjs" out="$2" tree
  rm -rf "$work" && mkdir -p "$work"
  cd "$work"
  tree="$work/src"
  patched_copy "$1" "$tree" "$RT/quickjs/patches"
  local version cc f objs=()
  version="$(cat "$tree/VERSION")"
  cc="$(wasi_cc)"
  # The sources QuickJS's own Makefile links into qjs, minus the REPL.
  for f in quickjs libregexp libunicode cutils dtoa quickjs-libc; do
    # shellcheck disable=SC2086
    $cc $QJS_CFLAGS -I"$RT/quickjs/compat" -DCONFIG_VERSION="\"$version\"" -c "$tree/$f.c" -o "$f.o"
    objs+=("$f.o")
  done
  # shellcheck disable=SC2086
  $cc $QJS_CFLAGS -I"$RT/quickjs/compat" -c "$RT/quickjs/compat/wasi_compat.c" -o wasi_compat.o
  # The globals written in JavaScript (the web globals, the Volent tool API) go
  # into js.wasm as byte arrays that main.c evaluates in ampoule_init
  # (docs/decisions/0031-js-web-globals.md).
  local js
  for js in web_globals volent; do
    {
      printf '/* Generated by scripts/build-runtimes.sh from runtimes/quickjs/%s.js. */\n' "$js"
      printf 'static const unsigned char %s_js[] = {\n' "$js"
      od -An -v -tx1 "$RT/quickjs/$js.js" | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'
      printf '0x00};\n'
    } >"$js.h"
  done
  # shellcheck disable=SC2086
  $cc -O2 -Wall -Wextra $PREFIX_MAP -I"$RT/quickjs/compat" -I. -isystem "$tree" \
    -c "$RT/quickjs/main.c" -o main.o
  # shellcheck disable=SC2086
  $cc $QJS_LDFLAGS -o js-unopt.wasm main.o "${objs[@]}" wasi_compat.o $QJS_LIBS
  if command -v wasm-opt >/dev/null; then
    # shellcheck disable=SC2086
    wasm-opt $WASM_OPT_FLAGS js-unopt.wasm -o "$out/js.wasm"
  else
    llvm-strip-14 -o "$out/js.wasm" js-unopt.wasm
  fi
}

# The zoneinfo tree of the tzdata package as one ustar archive, the same
# bytes on every machine (sorted names, fixed times and owners). Links become
# the files they name, since the kernel's reader takes regular files only
# (src/ampoule/kernel/tar_archive.h). Left out: localtime (a link to the
# build machine's own zone), posix/ (copies) and right/ (leap-second variants).
pack_tzdata() {
  local deb="$1" out="$2" x="$BUILD/tzdata"
  rm -rf "$x" && mkdir -p "$x" "$out/share"
  dpkg-deb -x "$deb" "$x"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=ustar \
    --dereference --hard-dereference --exclude=./localtime --exclude=./posix --exclude=./right \
    -C "$x/usr/share/zoneinfo" -cf "$out/share/zoneinfo.tar" .
}

# --- Checks ------------------------------------------------------------------
# Runs the runtimes as our host does (reactors; preopens /usr/local for
# python only, then /input, then /program; the fixed environment), with the
# programs in runtimes/test/ as /program.
run_checks() {
  local dir="$1" failed=0
  command -v node >/dev/null || die "--check needs node (Node.js 20, for node:wasi)"
  local input
  input="$(mktemp -d)"
  local py=(node --no-warnings "$RT/test/run-wasi.mjs" --dir "$dir=/usr/local" --dir "$input=/input"
            --dir "$RT/test=/program" --env PYTHONHOME=/usr/local --env PYTHONHASHSEED=0
            --env PYTHONDONTWRITEBYTECODE=1 "$dir/python.wasm")
  local js=(node --no-warnings "$RT/test/run-wasi.mjs" --dir "$input=/input" --dir "$RT/test=/program"
            "$dir/js.wasm")
  log "check: python.wasm smoke test under node:wasi"
  "${py[@]}" /program/smoke.py || failed=1
  log "check: python.wasm deep recursion ends in RecursionError"
  "${py[@]}" /program/recursion.py || failed=1
  log "check: js.wasm smoke test under node:wasi"
  "${js[@]}" /program/smoke.js || failed=1
  log "check: js.wasm deep recursion ends in QuickJS's stack overflow error"
  "${js[@]}" /program/recursion.js || failed=1
  log "check: python.wasm volent_tool (arguments, http_request, respond) under node:wasi"
  check_tool '{"answer": 42}' "${py[@]}" /program/tool.py || failed=1
  log "check: js.wasm global volent (arguments, httpRequest, respond) under node:wasi"
  check_tool '{"answer":42}' "${js[@]}" /program/tool.js || failed=1
  log "check: js.wasm reports an uncaught error with its stack and exit status 1"
  local status=0 err
  err="$("${js[@]}" /program/uncaught.js 2>&1 >/dev/null)" || status=$?
  if [[ $status -ne 1 || "$err" != *"RangeError: expected failure"* || "$err" != *"at inner"* ]]; then
    printf 'runtimes: uncaught.js: exit status %s, stderr:\n%s\n' "$status" "$err" >&2
    failed=1
  fi
  rmdir "$input"
  ((failed == 0)) || die "smoke tests failed"
}

# Runs a tool test (runtimes/test/tool.py, tool.js; run-wasi.mjs answers its
# HTTP requests) as a Volent tool is run: the arguments {"n": 21} on stdin.
# It must exit 0 with exactly WANT, its result, on stdout.
check_tool() {
  local want="$1" out status=0
  shift
  out="$(printf '{"n": 21}' | "$@")" || status=$?
  [[ $status -eq 0 && "$out" == "$want" ]] && return 0
  printf 'runtimes: %s: exit status %s, stdout %q, expected %q\n' "${*: -1}" "$status" "$out" "$want" >&2
  return 1
}

# Every runtime must be a reactor with exactly our entry points (no _start).
check_exports() {
  local m got
  for m in "$@"; do
    got="$(python3 "$RT/wasm_imports.py" "$m" --exports | LC_ALL=C sort | paste -sd' ' -)"
    [[ "$got" == "_initialize ampoule_init ampoule_main memory" ]] ||
      die "$(basename "$m") exports '$got', expected _initialize ampoule_init ampoule_main memory"
  done
}

# Beyond WASI, every runtime imports exactly a Volent tool's capability, the
# functions answer and request of volent:tool/http@0.1.0 (wit/volent-tool.wit);
# wasm_imports.py fails on an import from any other module.
check_imports() {
  local m got
  for m in "$@"; do
    got="$(python3 "$RT/wasm_imports.py" "$m" --tool | LC_ALL=C sort | paste -sd' ' -)" ||
      die "$(basename "$m") has an import the runtimes may not have (above)"
    [[ "$got" == "answer request" ]] ||
      die "$(basename "$m") imports '$got' from volent:tool/http@0.1.0, expected answer request"
  done
}

copy_out() {
  local from="$1" to="$2"
  mkdir -p "$to/lib" "$to/share" "$to/test"
  cp "$from/python.wasm" "$from/js.wasm" "$from/manifest.json" "$to/"
  cp "$from/lib/python311.zip" "$to/lib/"
  cp "$from/share/zoneinfo.tar" "$to/share/"
  cp "$from/test/cpython-tests.zip" "$to/test/"
  log "copied outputs to $to"
}

main() {
  # Only the final line (the output directory) goes to stdout; everything
  # else, including what tools print, goes to stderr.
  exec 8>&1 1>&2
  parse_args "$@"
  preflight
  mkdir -p "$CACHE" "$SRC"
  exec 9>"$CACHE/.lock"
  flock -n 9 || { log "another build of the runtimes is running; waiting"; flock 9; }

  local key dest
  INPUTS_TSV="$(mktemp)"
  trap 'rm -f "$INPUTS_TSV"' EXIT
  local inputs="$INPUTS_TSV"
  collect_inputs "$inputs"
  key="$(python3 "$RT/manifest.py" key "$inputs")"
  dest="$CACHE/$key"
  log "build key $key"

  if ((FORCE == 0)) && [[ -f "$dest/manifest.json" ]] && python3 "$RT/manifest.py" verify "$dest" >/dev/null; then
    log "up to date: $dest"
  else
    if [[ -f "$dest/manifest.json" ]] && ((FORCE == 0)); then
      log "cached outputs in $dest fail their SHA-256 check; rebuilding:"
      python3 "$RT/manifest.py" verify "$dest" | sed 's/^/runtimes:   /' || true
    elif [[ -f "$CACHE/latest" && "$(cat "$CACHE/latest")" != "$key" && -f "$CACHE/$(cat "$CACHE/latest")/manifest.json" ]]; then
      log "inputs changed since the last build ($(cat "$CACHE/latest")):"
      python3 "$RT/manifest.py" diff "$CACHE/$(cat "$CACHE/latest")/manifest.json" "$inputs" | sed 's/^/runtimes:   /'
    fi
    build_all "$inputs" "$dest"
  fi
  printf '%s\n' "$key" >"$CACHE/latest"

  [[ -z "$OUT_DIR" ]] || copy_out "$dest" "$OUT_DIR"
  ((CHECK == 0)) || run_checks "$dest"
  log "python.wasm, lib/python311.zip, js.wasm, share/zoneinfo.tar, test/cpython-tests.zip and manifest.json in:"
  printf '%s\n' "$dest" >&8
}

build_all() {
  local inputs="$1" dest="$2" t0=$SECONDS
  rm -rf "$BUILD" && mkdir -p "$LOGS"
  : >"$BUILD/timings.tsv"
  local py_tree zlib_tree sqlite_tree bzip2_tree xz_tree qjs_tree t_src=$SECONDS
  source_tree python3.11 "$PYTHON_SRC_VERSION" py_tree
  source_tree zlib "$ZLIB_SRC_VERSION" zlib_tree
  source_tree sqlite3 "$SQLITE_SRC_VERSION" sqlite_tree
  source_tree bzip2 "$BZIP2_SRC_VERSION" bzip2_tree
  source_tree xz-utils "$XZ_SRC_VERSION" xz_tree
  source_tree quickjs "$QUICKJS_SRC_VERSION" qjs_tree
  printf '%s\t%s\n' seconds.sources "$((SECONDS - t_src))" >>"$BUILD/timings.tsv"

  local stage="$BUILD/out"
  mkdir -p "$stage"
  make_sysroot
  step zlib "zlib $ZLIB_SRC_VERSION for $WASI_TARGET" build_zlib "$zlib_tree"
  step bzip2 "bzip2 $BZIP2_SRC_VERSION for $WASI_TARGET" build_bzip2 "$bzip2_tree"
  step xz "xz-utils $XZ_SRC_VERSION: liblzma for $WASI_TARGET" build_xz "$xz_tree"
  step sqlite "SQLite $SQLITE_SRC_VERSION: amalgamation + libsqlite3 for $WASI_TARGET" build_sqlite "$sqlite_tree"
  step python-configure "CPython $PYTHON_SRC_VERSION: autoconf + configure" configure_python "$py_tree"
  step python-build "CPython $PYTHON_SRC_VERSION: compile python.wasm (-j$JOBS)" build_python "$py_tree"
  step python-stdlib "CPython: strip python.wasm, pack the standard library" pack_python "$py_tree" "$stage"
  step quickjs "QuickJS $QUICKJS_SRC_VERSION: compile js.wasm" build_quickjs "$qjs_tree" "$stage"
  local tz_deb
  tzdata_deb tz_deb
  step tzdata "tzdata $TZDATA_VERSION: share/zoneinfo.tar" pack_tzdata "$tz_deb" "$stage"

  check_exports "$stage/python.wasm" "$stage/js.wasm"
  check_imports "$stage/python.wasm" "$stage/js.wasm"
  local extra="$BUILD/extra.tsv"
  {
    printf 'python.modules_not_built\t%s\n' "$(python_modules_not_built)"
    printf 'source.python3.11.dsc_sha256\t%s\n' "$(dsc_sha256 python3.11 "$PYTHON_SRC_VERSION")"
    printf 'source.zlib.dsc_sha256\t%s\n' "$(dsc_sha256 zlib "$ZLIB_SRC_VERSION")"
    printf 'source.sqlite3.dsc_sha256\t%s\n' "$(dsc_sha256 sqlite3 "$SQLITE_SRC_VERSION")"
    printf 'source.bzip2.dsc_sha256\t%s\n' "$(dsc_sha256 bzip2 "$BZIP2_SRC_VERSION")"
    printf 'source.xz-utils.dsc_sha256\t%s\n' "$(dsc_sha256 xz-utils "$XZ_SRC_VERSION")"
    printf 'source.quickjs.dsc_sha256\t%s\n' "$(dsc_sha256 quickjs "$QUICKJS_SRC_VERSION")"
    printf 'source.tzdata.deb_sha256\t%s\n' "$(sha256sum "$tz_deb" | cut -d' ' -f1)"
    printf 'python.wasi_imports\t%s\n' "$(python3 "$RT/wasm_imports.py" "$stage/python.wasm")"
    printf 'js.wasi_imports\t%s\n' "$(python3 "$RT/wasm_imports.py" "$stage/js.wasm")"
    printf 'python.tool_imports\tvolent:tool/http@0.1.0: %s\n' \
      "$(python3 "$RT/wasm_imports.py" "$stage/python.wasm" --tool | LC_ALL=C sort | paste -sd' ' -)"
    printf 'js.tool_imports\tvolent:tool/http@0.1.0: %s\n' \
      "$(python3 "$RT/wasm_imports.py" "$stage/js.wasm" --tool | LC_ALL=C sort | paste -sd' ' -)"
    printf 'python.exports\t%s\n' "$(python3 "$RT/wasm_imports.py" "$stage/python.wasm" --exports | paste -sd' ' -)"
    printf 'js.exports\t%s\n' "$(python3 "$RT/wasm_imports.py" "$stage/js.wasm" --exports | paste -sd' ' -)"
  } >"$extra"
  python3 "$RT/manifest.py" write "$stage" "$inputs" "$extra" python.wasm lib/python311.zip js.wasm \
    share/zoneinfo.tar test/cpython-tests.zip
  rm -rf "$dest" && mv "$stage" "$dest"
  log "built in $((SECONDS - t0))s (step times in $BUILD/timings.tsv)"
}

main "$@"
