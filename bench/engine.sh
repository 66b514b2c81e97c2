#!/usr/bin/env bash
# The engine benchmark: CPU-bound C workloads, built from Debian source
# packages, run natively, on our engine and on Node's V8, side by side.
#
#   bash bench/engine.sh
#
# Workloads (bench/workloads/*.c drive the libraries; the libraries are the
# Debian source packages, fetched with `apt-get source` on first use):
#   zlib    deflate + inflate of generated text        (source package zlib)
#   bzip2   bzip2 compress + decompress                (source package bzip2)
#   sqlite  200k inserts, indexed and aggregate queries (source package sqlite3)
#
# Each workload is compiled twice from the same sources with clang-14 -O2:
# for wasm32-wasi (Debian's wasi-libc) and natively. Every cell runs
# BENCH_RUNS times, interleaved; a cell counts only if its output equals the
# native output. Prints medians and spreads, ratios, the geometric mean of
# engine/native, the compile time of the largest module and what an instance
# costs beyond its linear memory.
#
# Environment:
#   BENCH_RUNS        runs per cell (default 5, at least 5 for a trustworthy spread)
#   BENCH_SCALE       work multiplier passed to each workload (default 1)
#   BENCH_WORKLOADS   subset, e.g. "zlib sqlite" (default: all)
#   BENCH_TIMEOUT     seconds before one run is abandoned (default 900)
#   BENCH_METRIC      wall (default) or cpu: the time the ratios and geomean use.
#                     Both tables are always printed; cpu (user + system) is
#                     steadier when other work shares the machine
#   AMPOULE           the engine binary (default build/bin/ampoule, built if missing)
#
# Sources and builds are cached in .cache/bench/, keyed by source version and
# flags; delete the folder to start over. Needs: clang-14 lld-14 wasi-libc
# libclang-rt-14-dev-wasm32 nodejs python3 dpkg-dev tcl (scripts/setup.sh),
# and deb-src entries (scripts/setup.sh derives them from the apt sources).
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly CACHE="$ROOT/.cache/bench"
readonly RUNS="${BENCH_RUNS:-5}"
readonly SCALE="${BENCH_SCALE:-1}"
readonly WORKLOADS="${BENCH_WORKLOADS:-zlib bzip2 sqlite}"
readonly TIMEOUT="${BENCH_TIMEOUT:-900}"
readonly METRIC="${BENCH_METRIC:-wall}"
AMPOULE="${AMPOULE:-$ROOT/build/bin/ampoule}"

# Linear memory starts large: growing by a lot at once has crashed Node 20.
readonly WASM_MEMORY=$((128 << 20))
readonly WASM_STACK=$((1 << 20))
readonly ENGINE_MEMORY_CAP=1G
readonly CFLAGS_COMMON="-O2"
# SQLite runs in memory on its own small OS layer (workloads/sqlite_vfs.c),
# natively and on wasm alike.
readonly SQLITE_DEFS="-DSQLITE_TEMP_STORE=3 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_WAL -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OS_OTHER=1"
readonly WASM_CC=(clang-14 --target=wasm32-wasi "--sysroot=$CACHE/sysroot")
readonly WASM_LDFLAGS="-Wl,--initial-memory=$WASM_MEMORY -Wl,-z,stack-size=$WASM_STACK"
readonly NATIVE_CC=(clang-14)

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

check_tools() {
  local missing=() t
  for t in clang-14 wasm-ld-14 node python3 apt-get dpkg-source tclsh; do
    command -v "$t" >/dev/null || missing+=("$t")
  done
  [[ -d /usr/include/wasm32-wasi && -d /usr/lib/wasm32-wasi ]] || missing+=("wasi-libc")
  compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a" >/dev/null \
    || missing+=("libclang-rt-14-dev-wasm32")
  ((${#missing[@]} == 0)) || die "missing: ${missing[*]}; run 'sudo bash scripts/setup.sh'"
}

# wasi-libc lives in Debian's multiarch folders; clang wants one sysroot.
make_sysroot() {
  mkdir -p "$CACHE/sysroot/include" "$CACHE/sysroot/lib"
  ln -sfn /usr/include/wasm32-wasi "$CACHE/sysroot/include/wasm32-wasi"
  ln -sfn /usr/lib/wasm32-wasi "$CACHE/sysroot/lib/wasm32-wasi"
}

release() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }

# Prints the version of source package $1 that `apt-get source` would fetch
# for this release (as in its .dsc file name, without the epoch).
source_version() {
  local pkg="$1" rel uris
  rel="$(release)"
  uris="$(apt-get source -q --print-uris "$pkg/$rel" 2>/dev/null || apt-get source -q --print-uris "$pkg" 2>/dev/null)" \
    || return 1
  sed -n "s/^'[^']*' ${pkg}_\(.*\)\.dsc .*/\1/p" <<<"$uris" | head -n 1
}

ensure_deb_src() {
  source_version zlib >/dev/null && [[ -n "$(source_version zlib)" ]] && return 0
  if [[ $EUID -eq 0 ]]; then
    log "no source packages available; deriving deb-src entries from the apt sources"
    bash "$ROOT/scripts/apt-deb-src.sh" >/dev/null
    apt-get update -q >&2
    [[ -n "$(source_version zlib)" ]] && return 0
  fi
  die "apt-get cannot fetch source packages; run 'sudo bash scripts/setup.sh' (it adds deb-src entries)"
}

# Fetches and unpacks source package $1 into the cache; prints its folder.
fetch_source() {
  local pkg="$1" version dir rel
  version="$(source_version "$pkg")"
  [[ -n "$version" ]] || die "apt-get knows no source package '$pkg'"
  dir="$CACHE/src/${pkg}_${version}"
  if [[ ! -f "$dir/.complete" ]]; then
    log "fetching source package $pkg $version"
    rel="$(release)"
    rm -rf "$dir.tmp" "$dir" && mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && { apt-get source -q "$pkg/$rel" || apt-get source -q "$pkg"; }) >"$dir.log" 2>&1 \
      || { cat "$dir.log" >&2; die "apt-get source $pkg failed"; }
    local unpacked
    unpacked="$(find "$dir.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
    [[ -n "$unpacked" ]] || die "apt-get source $pkg unpacked nothing (see $dir.log)"
    mv "$unpacked" "$dir" && rm -rf "$dir.tmp" && touch "$dir/.complete"
  fi
  echo "$dir"
}

# SQLite's source package is the full tree; the amalgamation (sqlite3.c) is
# generated from it with its own tools (needs tclsh). Prints the folder
# holding sqlite3.c and sqlite3.h.
sqlite_amalgamation() {
  local src="$1" out="$1/amalgamation"
  if [[ ! -f "$out/.complete" ]]; then
    log "generating the SQLite amalgamation (once)"
    rm -rf "$out" && mkdir -p "$out"
    (cd "$out" && "$src/configure" --disable-tcl && make sqlite3.c) >"$out.log" 2>&1 \
      || { tail -n 30 "$out.log" >&2; die "could not generate sqlite3.c (see $out.log)"; }
    touch "$out/.complete"
  fi
  echo "$out"
}

# Prints a short key for a build: everything that decides its bytes.
build_key() {
  { printf '%s\n' "$@"; clang-14 --version | head -n 1; dpkg-query -W -f='${Version}' wasi-libc;
    cat "$ROOT"/bench/workloads/*; } | sha256sum | cut -c1-16
}

# Compiles workload $1 from driver + library sources ($3...) with include
# folder $2 and extra flags $EXTRA, for wasm and natively. Prints the folder
# holding $1.wasm and $1.native.
build_workload() {
  local name="$1" inc="$2"; shift 2
  local srcs=("$ROOT/bench/workloads/${name}_bench.c" "$@")
  local key out
  key="$(build_key "$name" "$inc" "$CFLAGS_COMMON" "$EXTRA" "$WASM_LDFLAGS")"
  out="$CACHE/build/$name-$key"
  if [[ ! -f "$out/.complete" ]]; then
    log "building $name (wasm32-wasi and native)"
    rm -rf "$out" && mkdir -p "$out"
    # shellcheck disable=SC2086
    "${WASM_CC[@]}" $CFLAGS_COMMON $EXTRA -I"$inc" -I"$ROOT/bench/workloads" "${srcs[@]}" \
        $WASM_LDFLAGS -o "$out/$name.wasm" >"$out/wasm.log" 2>&1 \
      || { tail -n 40 "$out/wasm.log" >&2; die "$name: wasm build failed (see $out/wasm.log)"; }
    # shellcheck disable=SC2086
    "${NATIVE_CC[@]}" $CFLAGS_COMMON $EXTRA -I"$inc" -I"$ROOT/bench/workloads" "${srcs[@]}" \
        -lm -o "$out/$name.native" >"$out/native.log" 2>&1 \
      || { tail -n 40 "$out/native.log" >&2; die "$name: native build failed (see $out/native.log)"; }
    touch "$out/.complete"
  fi
  echo "$out"
}

build_zlib() {
  local src
  src="$(fetch_source zlib)"
  local files=() f
  for f in adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil; do
    files+=("$src/$f.c")
  done
  EXTRA="-w" build_workload zlib "$src" "${files[@]}"
}

build_bzip2() {
  local src
  src="$(fetch_source bzip2)"
  local files=() f
  for f in blocksort huffman crctable randtable compress decompress bzlib; do files+=("$src/$f.c"); done
  EXTRA="-w" build_workload bzip2 "$src" "${files[@]}"
}

build_sqlite() {
  local src amal
  src="$(fetch_source sqlite3)"
  amal="$(sqlite_amalgamation "$src")"
  EXTRA="-w $SQLITE_DEFS" build_workload sqlite "$amal" "$amal/sqlite3.c" "$ROOT/bench/workloads/sqlite_vfs.c"
}

# Builds the engine if it is missing (in build/, as scripts/test.sh does).
ensure_engine() {
  if [[ ! -x "$AMPOULE" ]]; then
    [[ "$AMPOULE" == "$ROOT/build/bin/ampoule" ]] || die "AMPOULE=$AMPOULE is not an executable"
    log "building the engine in build/"
    cmake -S "$ROOT" -B "$ROOT/build" -G Ninja >/dev/null && ninja -C "$ROOT/build" -j2 ampoule >&2 \
      || die "engine build failed"
  fi
}

# Builds bench/module_stats against the engine library next to $AMPOULE.
module_stats_tool() {
  local lib
  lib="$(dirname "$(dirname "$AMPOULE")")/libamp_wasm.a"
  [[ -f "$lib" ]] || { log "no $lib next to the engine binary; skipping module statistics"; return 1; }
  local out="$CACHE/module_stats"
  if [[ ! -x "$out" || "$lib" -nt "$out" || "$ROOT/bench/module_stats.cc" -nt "$out" ]]; then
    g++ -std=gnu++20 -O2 -I"$ROOT/src" "$ROOT/bench/module_stats.cc" "$lib" -o "$out" >&2 \
      || { log "module_stats did not build; skipping module statistics"; return 1; }
  fi
  echo "$out"
}

# Builds bench/rusage_run (peak RSS and CPU time of one run); prints its path.
rusage_launcher() {
  local out="$CACHE/rusage_run"
  if [[ ! -x "$out" || "$ROOT/bench/rusage_run.c" -nt "$out" ]]; then
    clang-14 -O2 -Wall "$ROOT/bench/rusage_run.c" -o "$out" >&2 || die "bench/rusage_run.c did not build"
  fi
  echo "$out"
}

print_module_stats() {
  local largest="$1" tool
  tool="$(module_stats_tool)" || return 0
  echo
  echo "largest module: $(basename "$largest") ($(stat -c %s "$largest") bytes)"
  "$tool" "$largest" 5 | awk '
    $1 == "compile_ms_median" { printf "  decode + validate + translate: %.1f ms (median of 5", $2 }
    $1 == "compile_ms_min"    { printf ", best %.1f ms)\n", $2 }
    $1 == "compiled_heap_bytes" { printf "  compiled module, shared by its instances: %.2f MiB\n", $2 / 1048576 }
    $1 == "instance_heap_bytes" { printf "  one instance beyond its linear memory: %.1f KiB\n", $2 / 1024 }
    $1 == "linear_memory_bytes" { printf "  (its linear memory at start: %.0f MiB)\n", $2 / 1048576 }' \
    || log "module_stats failed on $largest"
}

main() {
  [[ "$METRIC" == wall || "$METRIC" == cpu ]] || die "BENCH_METRIC must be wall or cpu"
  ((RUNS >= 1)) || die "BENCH_RUNS must be at least 1"
  ((RUNS >= 5)) || log "note: BENCH_RUNS=$RUNS; spreads from fewer than 5 runs say little"
  check_tools
  mkdir -p "$CACHE"
  make_sysroot
  ensure_deb_src
  local dirs=() w
  for w in $WORKLOADS; do
    declare -F "build_$w" >/dev/null || die "unknown workload '$w' (known: zlib bzip2 sqlite)"
    dirs+=("$w=$("build_$w")")
  done
  ensure_engine

  local plan="$CACHE/plan.json"
  local launcher
  launcher="$(rusage_launcher)"
  python3 - "$plan" "$RUNS" "$TIMEOUT" "$SCALE" "$METRIC" "$launcher" "$AMPOULE" "$ENGINE_MEMORY_CAP" "$ROOT" \
      "${dirs[@]}" <<'PY'
import json, sys
plan, runs, timeout, scale, metric, launcher, ampoule, cap, root, *dirs = sys.argv[1:]
workloads = []
for d in dirs:
    name, folder = d.split("=", 1)
    workloads.append({"name": name, "native": f"{folder}/{name}.native", "wasm": f"{folder}/{name}.wasm",
                      "args": [scale]})
json.dump({"runs": int(runs), "timeout": int(timeout), "metric": metric, "launcher": launcher,
           "workloads": workloads,
           "runners": [{"name": "native", "cmd": []},
                       {"name": "engine", "cmd": [ampoule, "wasm", "run", "--fuel", "18446744073709551615",
                                                  "--memory", cap], "args_after": ["--"]},
                       {"name": "node", "cmd": ["node", "--no-warnings", "--experimental-wasi-unstable-preview1",
                                                f"{root}/bench/node_wasi_run.mjs"]}]},
          open(plan, "w"), indent=1)
PY
  echo "engine: $AMPOULE ($(git -C "$ROOT" log -1 --format='%h %cs' 2>/dev/null || echo 'no git'))"
  echo "node: $(node --version), native and wasm: $(clang-14 --version | head -n 1), -O2"
  echo "runs per cell: $RUNS, scale: $SCALE, metric: $METRIC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ "$METRIC" == wall ]] && awk -v n="$(nproc)" '{ exit !($1 > n / 2) }' /proc/loadavg; then
    echo "note: the machine is busy; wall times will spread (BENCH_METRIC=cpu compares cpu time instead)"
  fi

  # Module statistics first: the last line printed is the geomean.
  local largest
  largest="$(for d in "${dirs[@]}"; do w="${d%%=*}"; echo "${d#*=}/$w.wasm"; done | xargs ls -S | head -n 1)"
  print_module_stats "$largest"
  echo
  python3 "$ROOT/bench/measure.py" "$plan"
}

main "$@"
