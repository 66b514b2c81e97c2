# Sourced (not run) by scripts/demo.sh, scripts/test.sh and
# scripts/reproducible.sh: the one configuration of the release build and the
# compiler cache, so that build/ (shared by the main job and the test command)
# is compiled exactly as the reproducible builds compile the pinned kernel and
# host tools. The test command's repro phase then finds build/'s objects in
# the compiler cache instead of compiling Ampoule a second time
# (docs/decisions/0028-test-phase-builds.md).
# shellcheck shell=bash

# Release without debug info (-O2 -DNDEBUG, the optimisation the tests and
# benchmarks use), no build id, source and build paths mapped away.
# shellcheck disable=SC2034
readonly RELEASE_CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
                             "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" -DAMPOULE_REPRODUCIBLE=ON
                             -DAMPOULE_SANITIZE=OFF -DAMPOULE_FUZZ=OFF -DAMPOULE_PCH=OFF)

# build/, the folder the main job and the test command share: the release
# configuration with the whole-command tests. The unit tests (unit_tests) are
# compiled and run once, in the sanitizer build (scripts/test.sh).
# shellcheck disable=SC2034
readonly BUILD_FOLDER_CMAKE_ARGS=("${RELEASE_CMAKE_ARGS[@]}" -DAMPOULE_TESTS=ON -DAMPOULE_UNIT_TESTS=OFF)

# The environment a release compile runs in. ccache hashes the locale
# variables, so build/ and the reproducible builds must agree on them.
release_env() {
  export LC_ALL=C TZ=UTC
  umask 022
  unset CFLAGS CXXFLAGS CPPFLAGS LDFLAGS MAKEFLAGS CMAKE_GENERATOR
}

# Sets CACHE_ARGS to CMake's compiler-launcher arguments for ccache (empty
# without ccache or with AMPOULE_CCACHE=0). Objects are keyed by their inputs
# and kept under the same cache folder as the guest runtimes; paths are taken
# relative to the checkout ($1) and the build folder is not hashed:
# -ffile-prefix-map keeps both out of the objects, so clones at different
# paths and build folders share entries.
CACHE_ARGS=()
use_compiler_cache() {
  CACHE_ARGS=()
  [[ "${AMPOULE_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null || return 0
  export CCACHE_DIR="${CCACHE_DIR:-${AMPOULE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ampoule}/ccache}"
  export CCACHE_BASEDIR="$1" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-6G}"
  # The precompiled headers (AMPOULE_PCH, CMakeLists.txt): without these
  # ccache compiles every file that uses one anew.
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
  # The depend mode: a miss is keyed from the compiler's own dependency file
  # (-MD, which CMake's Ninja files pass) instead of a second, preprocessor
  # run of every file (0.8 of 11.4 CPU seconds for one file of the control
  # API: Boost and JSON headers). Hits are the direct mode's, as before.
  export CCACHE_DEPEND="${CCACHE_DEPEND:-1}"
  unset CCACHE_DISABLE
  CACHE_ARGS=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
}
