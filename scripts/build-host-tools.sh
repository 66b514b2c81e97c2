#!/usr/bin/env bash
# Builds the host tools reproducibly: `ampoule` and `ampoule-verify`, in the
# same dedicated build folder and with the same fixed settings as
# scripts/build-kernel.sh, and prints MATCH/MISMATCH lines against the pins.
# An auditor rebuilds the verifier they rely on with this and compares.
#
# Usage: scripts/build-host-tools.sh [--strict] [--update-pins] [--reference DIR]
#   --strict       refuse a tree with uncommitted changes or untracked files,
#                  name the commit, and exit 1 if a tool differs from its pin
#                  in kernel/pins.txt (artifacts host:ampoule, host:ampoule-verify)
#                  when built with the pins' package versions (else the pins
#                  are NOT-COMPARABLE, and say which packages differ)
#   --update-pins  (with --strict) write this build's hashes into
#                  kernel/pins.txt; commit the file afterwards
#   --reference DIR  also compare with DIR/bin/TOOL, another build of this
#                  commit on this machine (build/): SAME or DIFFERENT, and
#                  DIFFERENT fails under --strict whatever the packages
#
# The tools are left in build-release/bin/ (or $AMPOULE_REPRO_BUILD_DIR/bin).
# Exit status: 0 built (and, with --strict, both match); 1 build failed or a
# mismatch under --strict; 2 usage error or dirty tree.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly REPRO_NAME=build-host-tools
# shellcheck source=scripts/reproducible.sh
source "$ROOT/scripts/reproducible.sh"

readonly TOOLS=(ampoule ampoule-verify)
STRICT=0
UPDATE_PINS=0
REFERENCE=""

usage_error() { printf 'build-host-tools: %s\n' "$*" >&2; sed -n '2,22p' "${BASH_SOURCE[0]}" >&2; exit 2; }

parse_args() {
  while (($#)); do
    case "$1" in
      --strict) STRICT=1; shift ;;
      --update-pins) UPDATE_PINS=1; shift ;;
      --reference) REFERENCE="${2:?--reference needs a build folder}"; shift 2 ;;
      -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
      *) usage_error "unknown argument '$1'" ;;
    esac
  done
  if ((UPDATE_PINS && !STRICT)); then
    usage_error "--update-pins needs --strict: pins come from a clean checkout of a commit"
  fi
}

main() {
  parse_args "$@"
  local t0=$SECONDS tool artifact sha
  ((STRICT == 0)) || repro_strict_check
  repro_begin

  repro_step configure "configure (Release, reproducible)" repro_configure
  repro_step compile-host "compile ${TOOLS[*]} (-j$REPRO_JOBS)" repro_build "${TOOLS[@]}"

  local artifacts=""
  for tool in "${TOOLS[@]}"; do
    artifacts+="host:$tool $(sha256sum "$REPRO_BUILD_DIR/bin/$tool" | cut -d' ' -f1)"$'\n'
    printf '%s %s\n' "$tool" "$REPRO_BUILD_DIR/bin/$tool"
  done
  artifacts="${artifacts%$'\n'}"
  repro_compare host: <<<"$artifacts"
  if [[ -n "$REFERENCE" ]]; then
    # Not a pipe: the comparison counts its differences in this shell.
    local before=$REPRO_MISMATCHES
    repro_compare_reference "$REFERENCE" < <(
      while read -r artifact sha; do
        printf '%s %s %s\n' "$artifact" "$sha" "$REFERENCE/bin/${artifact#host:}"
      done <<<"$artifacts")
    ((REPRO_MISMATCHES == before)) || repro_object_diff "$REPRO_BUILD_DIR" "$REFERENCE"
  fi
  if ((UPDATE_PINS)); then
    repro_update_pins host: <<<"$artifacts"
    REPRO_MISMATCHES=0
  fi
  repro_log "done in $((SECONDS - t0))s"
  repro_finish "$STRICT"
}

main "$@"
