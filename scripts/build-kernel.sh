#!/usr/bin/env bash
# Builds the kernel reproducibly: the guest runtimes (scripts/build-runtimes.sh,
# cached), `ampoule` and the static `ampoule-engine` in a dedicated build folder
# with fixed settings, then packs the kernel (`ampoule kernel pack --snapshots`)
# and prints its digest, its path, and MATCH/MISMATCH lines against the pins.
#
# Usage: scripts/build-kernel.sh [--strict] [--update-pins] [--out DIR]
#   --strict       refuse a tree with uncommitted changes or untracked files,
#                  name the commit, and exit 1 if any artifact differs from
#                  its pin in kernel/pins.txt
#   --update-pins  (with --strict) write this build's hashes into
#                  kernel/pins.txt; commit the file afterwards
#   --out DIR      where ampoule.kernel goes (default build/share/ampoule, so
#                  build/bin/ampoule finds it by the default path rule)
#
# Artifacts compared with the pins: `kernel` (the whole file, whose SHA-256 is
# the kernel digest) and `kernel:<entry>` for each entry (engine, the runtimes,
# their snapshots, manifest.json), so a mismatch says which part differs.
# Environment: AMPOULE_JOBS (default 2) compile jobs; AMPOULE_REPRO_BUILD_DIR
# (default build-release/) the build folder; AMPOULE_RUNTIMES_CACHE as for
# build-runtimes.sh.
#
# Exit status: 0 built (and, with --strict, every artifact matches its pin);
# 1 build failed or a mismatch under --strict; 2 usage error or dirty tree.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly REPRO_NAME=build-kernel
# shellcheck source=scripts/reproducible.sh
source "$ROOT/scripts/reproducible.sh"

STRICT=0
UPDATE_PINS=0
OUT_DIR="$ROOT/build/share/ampoule"

usage_error() { printf 'build-kernel: %s\n' "$*" >&2; sed -n '2,24p' "${BASH_SOURCE[0]}" >&2; exit 2; }

parse_args() {
  while (($#)); do
    case "$1" in
      --strict) STRICT=1; shift ;;
      --update-pins) UPDATE_PINS=1; shift ;;
      --out) [[ $# -ge 2 ]] || usage_error "--out needs a directory"; OUT_DIR="$2"; shift 2 ;;
      -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
      *) usage_error "unknown argument '$1'" ;;
    esac
  done
  if ((UPDATE_PINS && !STRICT)); then
    usage_error "--update-pins needs --strict: pins come from a clean checkout of a commit"
  fi
}

# The facts about the engine build that go into the kernel manifest.
engine_info_args() {
  local fact
  printf -- '--engine-info\nbuild=Release -O2 -DNDEBUG, AMPOULE_REPRODUCIBLE=ON, static\n'
  while read -r fact; do printf -- '--engine-info\ntoolchain.%s\n' "$fact"; done < <(repro_toolchain --engine)
}

pack_kernel() {
  local args=()
  mapfile -t args < <(engine_info_args)
  bash "$ROOT/scripts/pack-kernel.sh" "$REPRO_BUILD_DIR" --runtimes "$REPRO_BUILD_DIR/runtimes" \
    -o "$OUT_DIR/ampoule.kernel" -- "${args[@]}"
}

# "ARTIFACT SHA256" lines for the kernel and each of its entries.
kernel_artifacts() {
  local kernel="$OUT_DIR/ampoule.kernel"
  printf 'kernel %s\n' "$(sha256sum "$kernel" | cut -d' ' -f1)"
  "$REPRO_BUILD_DIR/bin/ampoule" kernel info "$kernel" | awk '$1 == "entry" { print "kernel:" $4, $2 }'
}

main() {
  parse_args "$@"
  local t0=$SECONDS
  ((STRICT == 0)) || repro_strict_check
  repro_begin

  local rt_t0=$SECONDS
  repro_log "guest runtimes (scripts/build-runtimes.sh, cached) ..."
  rm -rf "$REPRO_BUILD_DIR/runtimes"
  bash "$ROOT/scripts/build-runtimes.sh" --jobs "$REPRO_JOBS" --out "$REPRO_BUILD_DIR/runtimes" 2>&1 |
    sed -u 's/^/  /'
  repro_log "guest runtimes: done in $((SECONDS - rt_t0))s"

  repro_step configure "configure (Release, reproducible)" repro_configure
  repro_step compile "compile ampoule and ampoule-engine (-j$REPRO_JOBS)" repro_build ampoule ampoule-engine
  repro_step pack "pack the kernel (with runtime snapshots)" pack_kernel
  sed 's/^/  /' "$REPRO_BUILD_DIR/logs/pack.log"

  local artifacts
  artifacts="$(kernel_artifacts)"
  repro_compare kernel <<<"$artifacts"
  if ((UPDATE_PINS)); then
    repro_update_pins kernel <<<"$artifacts"
    REPRO_MISMATCHES=0
  fi
  printf 'kernel %s\n' "$OUT_DIR/ampoule.kernel"
  printf 'kernel digest %s\n' "$(awk '$1 == "kernel" { print $2 }' <<<"$artifacts")"
  repro_log "done in $((SECONDS - t0))s"
  repro_finish "$STRICT"
}

main "$@"
