#!/usr/bin/env bash
# The receipts benchmark: how fast receipts are signed and verified, beside
# the raw Ed25519 verify rate of the same libsodium measured in the same run.
#
#   bash bench/receipts.sh
#
# Builds bench/receipts_bench.cc against the libraries of a build folder and
# runs it: N receipts of a realistic run record are signed (run::MakeReceipt)
# and verified with the whole receipt check (verify::ReadSignedRunReceipt,
# what ampoule-verify does once the file is read), and the same signatures
# are checked with bare crypto_sign_verify_detached. Rates are per core
# (thread CPU time); each figure is the median of BENCH_RUNS runs with its
# spread, and a spread over 10% is flagged as not trustworthy yet. Then the
# whole command, `ampoule-verify RECEIPT --key PUB`, is timed as processes
# per second (wall time; process start-up included).
#
# Environment:
#   BENCH_RUNS      runs (default 7)
#   BENCH_N         receipts per run (default 2000)
#   BENCH_PROCS     ampoule-verify processes timed (default 200; 0 to skip)
#   AMPOULE_BUILD   build folder with the libraries and bin/ampoule-verify
#                   (default build; built with ninja if a library is missing)
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly CACHE="$ROOT/.cache/bench"
readonly RUNS="${BENCH_RUNS:-7}"
readonly N="${BENCH_N:-2000}"
readonly PROCS="${BENCH_PROCS:-200}"
readonly BUILD="${AMPOULE_BUILD:-$ROOT/build}"

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

libs=("$BUILD/libamp_verify.a" "$BUILD/libamp_run.a" "$BUILD/libamp_receipt.a" "$BUILD/libcore.a")
for lib in "${libs[@]}"; do
  if [[ ! -f "$lib" ]]; then
    log "building the libraries in $BUILD"
    ninja -C "$BUILD" amp_verify amp_run amp_receipt core ampoule-verify >&2 || die "build failed in $BUILD"
    break
  fi
done

mkdir -p "$CACHE"
tool="$CACHE/receipts_bench"
if [[ ! -x "$tool" || "$ROOT/bench/receipts_bench.cc" -nt "$tool" ]] || \
   [[ -n "$(find "${libs[@]}" -newer "$tool" 2>/dev/null)" ]]; then
  g++ -std=gnu++20 -O2 -I"$ROOT/src" "$ROOT/bench/receipts_bench.cc" "${libs[@]}" -lsodium -o "$tool" \
    || die "bench/receipts_bench.cc did not build"
fi

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$tool" "$N" "$RUNS"

verify_bin="$BUILD/bin/ampoule-verify"
if ((PROCS > 0)) && [[ -x "$verify_bin" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # One receipt through the command line: keys and a receipt made by the tool.
  "$tool" --write "$work" >/dev/null 2>&1 || true
  if [[ -f "$work/receipt.json" ]]; then
    rates=()
    for ((r = 0; r < RUNS; r++)); do
      start=$(date +%s.%N)
      for ((i = 0; i < PROCS; i++)); do
        "$verify_bin" "$work/receipt.json" --key "$work/key.pub" >/dev/null 2>&1 || [[ $? == 5 ]] \
          || die "ampoule-verify did not accept the benchmark receipt"
      done
      end=$(date +%s.%N)
      rates+=("$(echo "$PROCS / ($end - $start)" | bc -l)")
    done
    printf '%s\n' "${rates[@]}" | sort -g | awk -v runs="$RUNS" '
      { v[NR] = $1 }
      END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        s = (v[NR] - v[1]) / m
        printf "command  %12.0f ampoule-verify processes/s   spread %5.1f%%%s (wall time, start-up included)\n",
               m, s * 100, (s > 0.10 ? "  (over 10%: not trustworthy yet)" : "")
      }'
  fi
fi
