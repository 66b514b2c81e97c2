#!/usr/bin/env bash
# The journal benchmark: how many agent steps per second the journal records
# with an fsync for every entry, beside SQLite's own rate for one-row
# transactions with the same durability, measured in the same run.
#
#   bash bench/journal.sh
#
# Builds bench/journal_bench.cc against libvolent_journal.a of a build folder
# and runs it: each step is a BeginEffect and a CompleteEffect (docs/journal.md),
# each one BEGIN IMMEDIATE transaction committed with fsync (WAL,
# synchronous=FULL); the peer inserts single rows, one transaction each, into
# a plain SQLite table in WAL mode with synchronous=FULL. Runs alternate; each
# figure is the median of BENCH_RUNS runs with its spread, and a spread over
# 10% is flagged as not trustworthy yet. Wall time: fsync latency is the cost.
#
# Environment:
#   BENCH_RUNS      runs (default 7)
#   BENCH_STEPS     steps per run (default 300; the peer inserts twice as many rows)
#   BENCH_DIR       folder for the databases (default .cache/bench/journal; put it
#                   on the disk under test — a tmpfs makes fsync free)
#   AMPOULE_BUILD   build folder with libvolent_journal.a (default build; built
#                   with ninja if missing)
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly CACHE="$ROOT/.cache/bench"
readonly RUNS="${BENCH_RUNS:-7}"
readonly STEPS="${BENCH_STEPS:-300}"
readonly DIR="${BENCH_DIR:-$CACHE/journal}"
readonly BUILD="${AMPOULE_BUILD:-$ROOT/build}"

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

lib="$BUILD/libvolent_journal.a"
core="$BUILD/libcore.a"  # the entry hash (SHA-256, hex)
if [[ ! -f "$lib" || ! -f "$core" ]]; then
  log "building the journal library in $BUILD"
  ninja -C "$BUILD" volent_journal core >&2 || die "build failed in $BUILD"
fi

mkdir -p "$CACHE" "$DIR"
tool="$CACHE/journal_bench"
if [[ ! -x "$tool" || "$ROOT/bench/journal_bench.cc" -nt "$tool" || "$lib" -nt "$tool" ]]; then
  g++ -std=gnu++20 -O2 -I"$ROOT/src" "$ROOT/bench/journal_bench.cc" "$lib" "$core" -lsqlite3 -lsodium -pthread \
    -o "$tool" || die "bench/journal_bench.cc did not build"
fi

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "disk: $(df -T "$DIR" | awk 'NR == 2 { print $2 " on " $1 }') ($DIR)"
"$tool" "$DIR" "$STEPS" "$RUNS"
