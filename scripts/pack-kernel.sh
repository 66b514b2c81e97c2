#!/usr/bin/env bash
# Packs a kernel file from a build folder's `ampoule` and static
# `ampoule-engine` and the guest runtimes: the one place the main job
# (scripts/demo.sh), the test command (scripts/test.sh) and the reproducible
# kernel (scripts/build-kernel.sh) pack a kernel.
#
# Usage: scripts/pack-kernel.sh BUILD [--runtimes DIR] [-o FILE] [-- PACK-ARGS...]
#   BUILD           the build folder holding bin/ampoule and bin/ampoule-engine
#   --runtimes DIR  the guest runtimes (default: scripts/build-runtimes.sh's
#                   output, built from Debian source packages and cached)
#   -o FILE         the kernel file (default: BUILD/share/ampoule/ampoule.kernel,
#                   where BUILD/bin/ampoule looks by default)
#   PACK-ARGS       passed on to `ampoule kernel pack` (e.g. --engine-info)
# Prints `ampoule kernel pack`'s output; exits non-zero if anything failed.
set -euo pipefail

die() { echo "pack-kernel: $*" >&2; exit 1; }

(($#)) || die "usage: scripts/pack-kernel.sh BUILD [--runtimes DIR] [-o FILE] [-- PACK-ARGS...]"
build="$1"; shift
runtimes="" out="$build/share/ampoule/ampoule.kernel" extra=()
while (($#)); do
  case "$1" in
    --runtimes) runtimes="${2:?--runtimes needs a folder}"; shift 2 ;;
    -o) out="${2:?-o needs a file}"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown argument: $1" ;;
  esac
done

for tool in ampoule ampoule-engine; do
  [[ -x "$build/bin/$tool" ]] || die "$build/bin/$tool is missing: build it first"
done
if [[ -z "$runtimes" ]]; then
  runtimes="$(bash "$(dirname "$0")/build-runtimes.sh" | tail -n 1)" || die "building the guest runtimes failed"
fi
[[ -d "$runtimes" ]] || die "the guest runtimes folder '$runtimes' does not exist"

mkdir -p "$(dirname "$out")"
"$build/bin/ampoule" kernel pack -o "$out" --engine "$build/bin/ampoule-engine" \
  --runtimes "$runtimes" --snapshots "${extra[@]}"
