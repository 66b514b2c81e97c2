# Shared by scripts/build-kernel.sh and scripts/build-host-tools.sh (sourced,
# not run): the reproducible build environment, --strict's clean-tree check,
# timed steps, and the pinned hashes in kernel/pins.txt.
#
# Reproducible means: the same commit gives the same bytes at any checkout
# path, on the same OS image (the same Debian packages). What makes it so:
#   - a dedicated build folder configured from scratch with fixed options:
#     Release without debug info (-O2 -DNDEBUG, the optimisation the tests and
#     benchmarks use), AMPOULE_REPRODUCIBLE=ON (no build id, source and build
#     folder paths mapped away by -ffile-prefix-map; scripts/build-config.sh),
#     no tests, no compiler cache (AMPOULE_REPRO_CCACHE=1, set by the test
#     command, lets it reuse build/'s identical objects; the pins still decide);
#   - a fixed environment: LC_ALL=C, TZ=UTC, umask 022, SOURCE_DATE_EPOCH =
#     the commit's time, and no CFLAGS/CXXFLAGS/LDFLAGS from the caller;
#   - sorted inputs: CMake's globs are sorted, the kernel's entries are sorted
#     by name, manifests are written with sorted keys.
# shellcheck shell=bash

# shellcheck source=scripts/build-config.sh
source "$ROOT/scripts/build-config.sh"

REPRO_MISMATCHES=0
REPRO_PINS_FILE="$ROOT/kernel/pins.txt"
REPRO_BUILD_DIR="${AMPOULE_REPRO_BUILD_DIR:-$ROOT/build-release}"
REPRO_JOBS="${AMPOULE_JOBS:-2}"

# Debian packages whose versions decide the bytes of the C++ outputs. The
# engine's are recorded in the kernel manifest (engine build facts); those and
# the libraries whose headers only the host tools compile (OpenSSL, SQLite,
# utf8proc, Boost) beside the pins.
readonly REPRO_TOOLCHAIN=(g++-12 libc6-dev libstdc++-12-dev binutils libsodium-dev libseccomp-dev
                          nlohmann-json3-dev cmake ninja-build)
readonly REPRO_HOST_LIBRARIES=(libssl-dev libsqlite3-dev libutf8proc-dev libboost1.74-dev)

repro_log() { printf '%s: %s\n' "$REPRO_NAME" "$*"; }
repro_die() { printf '%s: error: %s\n' "$REPRO_NAME" "$*" >&2; exit "${2:-1}"; }

# Runs "$@" as a named step, printing what it does and how long it took. The
# output goes to $REPRO_BUILD_DIR/logs/NAME.log; on failure its end is shown.
repro_step() {
  local name="$1" what="$2"; shift 2
  local logf="$REPRO_BUILD_DIR/logs/$name.log" t0=$SECONDS
  mkdir -p "$REPRO_BUILD_DIR/logs"
  repro_log "$what ..."
  if ! ( "$@" ) >"$logf" 2>&1; then
    printf '%s: error: %s failed; last lines of %s:\n' "$REPRO_NAME" "$what" "$logf" >&2
    tail -n 30 "$logf" >&2
    exit 1
  fi
  repro_log "$what: done in $((SECONDS - t0))s"
}

repro_env() {
  release_env
  if [[ "${AMPOULE_REPRO_CCACHE:-0}" == 1 ]]; then
    use_compiler_cache "$ROOT"
  else
    CACHE_ARGS=()
    unset CCACHE_BASEDIR
    export CCACHE_DISABLE=1
  fi
  if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    SOURCE_DATE_EPOCH="$(git -C "$ROOT" log -1 --format=%ct)"
  else
    SOURCE_DATE_EPOCH=0
  fi
  export SOURCE_DATE_EPOCH
}

# The fixed environment, then the build folder, held by one build at a time
# (the kernel and host-tools scripts share it).
repro_begin() {
  repro_env
  mkdir -p "$REPRO_BUILD_DIR"
  exec 8>"$REPRO_BUILD_DIR/.lock"
  flock -n 8 || { repro_log "another reproducible build is using $REPRO_BUILD_DIR; waiting"; flock 8; }
  repro_log "source date $SOURCE_DATE_EPOCH, build folder $REPRO_BUILD_DIR, $REPRO_JOBS jobs"
}

# --strict: refuses uncommitted changes to tracked files and untracked files
# that are not ignored, then names the commit. The pins file is the one
# exception: it is not an input of any build, and --update-pins of one script
# must not stop the other's.
repro_strict_check() {
  git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || repro_die "--strict needs a git checkout" 2
  local dirty
  dirty="$(git -C "$ROOT" status --porcelain --untracked-files=all -- . ':(exclude)kernel/pins.txt')"
  if [[ -n "$dirty" ]]; then
    printf '%s: --strict: the tree has uncommitted changes or untracked files:\n' "$REPRO_NAME" >&2
    printf '%s\n' "$dirty" | head -n 20 | sed 's/^/  /' >&2
    repro_die "--strict builds only a clean checkout of a commit; commit, stash or remove these" 2
  fi
  printf 'note: --strict: commit %s\n' "$(git -C "$ROOT" rev-parse HEAD)"
}

repro_configure() {
  local launcher=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_C_COMPILER_LAUNCHER)
  ((${#CACHE_ARGS[@]})) && launcher=("${CACHE_ARGS[@]}")
  cmake -S "$ROOT" -B "$REPRO_BUILD_DIR" -G Ninja "${RELEASE_CMAKE_ARGS[@]}" -DAMPOULE_TESTS=OFF "${launcher[@]}"
}

repro_build() { ninja -C "$REPRO_BUILD_DIR" -j"$REPRO_JOBS" "$@"; }

# Prints NAME=VERSION for each toolchain package (sorted): the engine's with
# --engine, else every package the pins depend on.
repro_toolchain() {
  local p packages=("${REPRO_TOOLCHAIN[@]}")
  [[ "${1:-}" == --engine ]] || packages+=("${REPRO_HOST_LIBRARIES[@]}")
  for p in "${packages[@]}"; do
    printf '%s=%s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo 'not installed')"
  done | LC_ALL=C sort
}

# The pinned SHA-256 of ARTIFACT, or nothing.
repro_pinned() {
  [[ -f "$REPRO_PINS_FILE" ]] || return 0
  awk -v a="$1" '$1 == "pin" && $2 == a { print $3 }' "$REPRO_PINS_FILE"
}

# Compares built artifacts with the pins. Arguments: PREFIX then
# "ARTIFACT SHA256" lines on stdin. Prints one MATCH or MISMATCH line per
# artifact built or pinned under PREFIX (an artifact name starts with it).
# Built with other package versions than the pins were, a differing artifact
# is NOT-COMPARABLE instead (the packages, not the sources, are then the
# likely cause; repro_compare_reference still compares two builds here).
repro_compare() {
  local prefix="$1" artifact sha want line same_toolchain=1 which=""
  [[ "$prefix" == kernel* ]] && which=--engine
  [[ -z "$(repro_toolchain_diff $which)" ]] || same_toolchain=0
  declare -A built=()
  while read -r artifact sha; do built["$artifact"]="$sha"; done
  local names
  names="$( { printf '%s\n' "${!built[@]}"
              if [[ -f "$REPRO_PINS_FILE" ]]; then
                awk -v p="$prefix" '$1 == "pin" && index($2, p) == 1 { print $2 }' "$REPRO_PINS_FILE"
              fi
            } | LC_ALL=C sort -u)"
  while read -r artifact; do
    [[ -n "$artifact" ]] || continue
    want="$(repro_pinned "$artifact")"
    sha="${built[$artifact]:-}"
    if [[ -n "$want" && "$want" == "$sha" ]]; then
      line="MATCH $artifact $sha"
    elif ((!same_toolchain)) && [[ -n "$want" && -n "$sha" ]]; then
      line="NOT-COMPARABLE $artifact pinned $want got $sha (other package versions, below)"
    else
      line="MISMATCH $artifact expected ${want:-none} got ${sha:-missing}"
      REPRO_MISMATCHES=$((REPRO_MISMATCHES + 1))
    fi
    printf '%s\n' "$line"
  done <<<"$names"
  repro_toolchain_note
}

# Says when the toolchain differs from the one the pins were made with: a
# different compiler or library version gives different bytes, and that is
# not a reproducibility failure of the sources.
repro_toolchain_note() {
  local differs
  differs="$(repro_toolchain_diff)"
  [[ -n "$differs" ]] || return 0
  repro_log "note: the toolchain differs from the one the pins were made with:"
  printf '%s\n' "$differs"
}

# The toolchain lines that differ from the pins' (`  pinned: P=V` and
# `  here:   P=V`), or nothing; with --engine, of the engine's packages only.
repro_toolchain_diff() {
  [[ -f "$REPRO_PINS_FILE" ]] || return 0
  local current pinned
  current="$(repro_toolchain "${1:-}")"
  pinned="$(awk 'NR == FNR { split($0, kv, "="); want[kv[1]] = 1; next }
                 $1 == "toolchain" && ($2 in want) { print $2 "=" $3 }' \
                <(printf '%s\n' "$current") "$REPRO_PINS_FILE" | LC_ALL=C sort)"
  if [[ -z "$pinned" || "$current" == "$pinned" ]]; then return 0; fi
  { diff <(printf '%s\n' "$pinned") <(printf '%s\n' "$current") || true; } |
    sed -n 's/^</  pinned: /p; s/^>/  here:   /p'
}

# Compares built artifacts with the same artifacts of another build of this
# commit on this machine (build/, compiled in another folder). Arguments: a
# label, then "ARTIFACT SHA256 REFERENCE-FILE" lines on stdin. Prints SAME or
# DIFFERENT per artifact; a difference counts as a mismatch: whatever the
# packages, two builds of one commit must agree.
repro_compare_reference() {
  local label="$1" artifact sha file other
  while read -r artifact sha file; do
    if [[ ! -f "$file" ]]; then
      printf 'DIFFERENT %s: %s is missing\n' "$artifact" "$file"
      REPRO_MISMATCHES=$((REPRO_MISMATCHES + 1))
      continue
    fi
    other="$(sha256sum "$file" | cut -d' ' -f1)"
    if [[ "$other" == "$sha" ]]; then
      printf 'SAME %s %s as %s\n' "$artifact" "$sha" "$label"
    else
      printf 'DIFFERENT %s %s, %s has %s\n' "$artifact" "$sha" "$label" "$other"
      REPRO_MISMATCHES=$((REPRO_MISMATCHES + 1))
    fi
  done
}

# repro_object_diff DIR_A DIR_B: when two builds of one commit link
# different tools, which of their objects differ (the same path under each
# CMakeFiles/), so that a CI log says where to look. At most 20 named.
repro_object_diff() {
  local a="$1" b="$2" rel n=0 differ=0
  while IFS= read -r -d '' rel; do
    rel="${rel#"$a"/}"
    [[ -f "$b/$rel" ]] || continue
    n=$((n + 1))
    if ! cmp -s "$a/$rel" "$b/$rel"; then
      differ=$((differ + 1))
      ((differ <= 20)) && printf '  object differs: %s\n' "$rel"
    fi
  done < <(find "$a/CMakeFiles" -name '*.o' -print0 2>/dev/null | LC_ALL=C sort -z)
  printf '  %d of %d objects in both %s and %s differ\n' "$differ" "$n" "$a" "$b"
}

# Rewrites the pins under PREFIX from "ARTIFACT SHA256" lines on stdin,
# keeping every other pin, and records the toolchain.
repro_update_pins() {
  local prefix="$1" tmp
  mkdir -p "$(dirname "$REPRO_PINS_FILE")"
  tmp="$(mktemp "$REPRO_PINS_FILE.XXXXXX")"
  {
    cat <<'EOF'
# Pinned SHA-256 of the reproducible build outputs (docs/kernel.md), checked by
#   scripts/build-kernel.sh --strict       (kernel, kernel:<entry name>)
#   scripts/build-host-tools.sh --strict   (host:ampoule, host:ampoule-verify)
# Valid for the toolchain listed below (Debian package versions); another
# toolchain gives other bytes. Update procedure: docs/kernel.md.
EOF
    repro_toolchain | sed 's/=/ /; s/^/toolchain /'
    {
      if [[ -f "$REPRO_PINS_FILE" ]]; then
        awk -v p="$prefix" '$1 == "pin" && index($2, p) != 1' "$REPRO_PINS_FILE"
      fi
      awk '{ print "pin", $1, $2 }'
    } | LC_ALL=C sort -k2,2
  } >"$tmp"
  mv "$tmp" "$REPRO_PINS_FILE"
  repro_log "updated $REPRO_PINS_FILE; commit it"
}

# Ends the script: the verdict of the comparison.
repro_finish() {
  local strict="$1"
  if ((REPRO_MISMATCHES > 0)); then
    if ((strict)); then
      repro_die "$REPRO_MISMATCHES artifact(s) differ from the pins in kernel/pins.txt or from the reference build"
    fi
    repro_log "note: $REPRO_MISMATCHES artifact(s) differ from the pins (only --strict fails on that)"
  fi
}
