#!/usr/bin/env bash
# The one test command. Run from anywhere; it works in the repository root.
#
#   1. build/       the release build (scripts/build-config.sh: -O2, no debug
#                   information, reproducible outputs, exactly as the pinned
#                   tools are built); the guest runtimes
#                   (scripts/build-runtimes.sh, cached, built beside the
#                   compile) packed with its engine into
#                   build/share/ampoule/ampoule.kernel; then ctest on the
#                   labels whose point is the release build: the guest
#                   corpora and limits through `ampoule run`, replay of the
#                   corpora, the release bundle, the sealed image under QEMU,
#                   the conformance suites (every test, when asan is skipped)
#   2. build-asan/  one clang-14 build under AddressSanitizer +
#                   UndefinedBehaviorSanitizer (-O0, the engine and the WASI
#                   host -O1, assertions on) with libFuzzer's coverage
#                   instrumentation: the same objects give the sanitizer tests
#                   (ctest: the unit tests, unit_tests, which only this build
#                   compiles, and the other whole-command tests: the trust
#                   gate, ampoule-verify, `ampoule mcp` (its JavaScript tests
#                   after scripts/npm-install.sh, cached), the demos, the
#                   Volent node) and the libFuzzer targets (fuzz/*_fuzz.cc).
#                   Without clang: GCC's sanitizers, no fuzzing.
#   3. build-o0/    `ampoule-wasm-run` (the engine and the WASI host) at -O0;
#                   every WASI guest program must give the same output and
#                   fuel as on build/ (tests/determinism.sh)
#   4. fuzz         each libFuzzer target of build-asan/ run for a bounded time
#                   from a seed corpus
#   5. repro        scripts/build-kernel.sh --strict and
#                   scripts/build-host-tools.sh --strict: rebuild the kernel and
#                   the host tools from the commit in build-release/ and compare
#                   with the pins (through the compiler cache, which holds
#                   build/'s identical objects; an auditor's rebuild uses none);
#                   scripts/image/reproduce.sh: the sealed image from those
#                   rebuilt binaries, compared with build/'s
#
# Every phase runs even if an earlier one failed (except the tests of a build
# that failed); a summary with the time of each phase comes last. Exits 0 only
# if every phase that ran passed. Anything skipped says why.
#
# Environment:
#   AMPOULE_FUZZ_SECONDS  the fuzz phase's time, shared by the targets, AMPOULE_JOBS of them
#                         at once, each at least 5 s (default 60; 0 skips)
#   AMPOULE_JOBS          parallel build and test jobs (default 2)
#   AMPOULE_SKIP          space-separated phases to skip: build kernel npm asan
#                         determinism fuzz repro (skipping asan but not fuzz still
#                         builds build-asan/, which holds the fuzz targets)
#   AMPOULE_BUILD_ROOT    where build/, build-asan/, build-o0/ go (default: the repository)
#   AMPOULE_CCACHE        0 builds without the compiler cache (default: use ccache if installed)
set -uo pipefail

cd "$(dirname "$0")/.."
readonly ROOT="$PWD"
readonly JOBS="${AMPOULE_JOBS:-2}"
readonly FUZZ_SECONDS="${AMPOULE_FUZZ_SECONDS:-60}"
readonly SKIP=" ${AMPOULE_SKIP:-} "
readonly OUT="${AMPOULE_BUILD_ROOT:-$ROOT}"
mkdir -p "$OUT"
TIMES_FILE="$(mktemp)"
readonly TIMES_FILE
# A runtimes build still running (the release compile failed before the
# kernel phase waited for it) is waited for, not left behind.
trap 'rm -f "$TIMES_FILE"; [[ -z "${RUNTIMES_PID:-}" ]] || wait "$RUNTIMES_PID"' EXIT

# pyenv's python3 is a shell script that looks up and starts the interpreter,
# a quarter of a second a call on a busy machine; the gate and verify tests
# call python3 hundreds of times. Put the interpreter's own folder first.
if py_dir="$(python3 -c 'import os, sys; print(os.path.dirname(sys.executable))' 2>/dev/null)" \
   && [[ -x "$py_dir/python3" && "$(command -v python3)" != "$py_dir/python3" ]]; then
  export PATH="$py_dir:$PATH"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

summary=()
failed=0
# The tests build/ runs when the asan phase runs the rest (see "build: ctest").
readonly RELEASE_LABELS="corpus|package|image|conformance"

say() { printf '\n=== %s\n' "$*"; }

# Sets CHILD_CPU to the CPU seconds (user + system) used so far by finished
# child processes; beside the wall time it tells a slow phase from a busy
# machine. `times` must run in this shell: in a pipeline or $(...) it would
# report a subshell's own, empty, accounting.
children_cpu() {
  times >"$TIMES_FILE"
  CHILD_CPU=$(awk 'NR == 2 {
    n = split($1 " " $2, t, " "); s = 0
    for (i = 1; i <= n; i++) { split(t[i], ms, "m"); sub(/s$/, "", ms[2]); s += ms[1] * 60 + ms[2] }
    printf "%d\n", s }' "$TIMES_FILE")
}

# Runs one named step, records its time and result.
step() {
  local name="$1"; shift
  say "$name"
  local start=$SECONDS cpu_start
  children_cpu
  cpu_start=$CHILD_CPU
  local status=ok
  "$@" || status=FAILED
  children_cpu
  summary+=("$(printf '%-28s %-8s %5ds wall %6ds cpu' "$name" "$status" $((SECONDS - start)) \
               $((CHILD_CPU - cpu_start)))")
  [[ $status == ok ]] && return 0
  failed=1
  return 1
}

skip() {
  local name="$1" why="$2"
  say "$name: skipped: $why"
  summary+=("$(printf '%-28s skipped  (%s)' "$name" "$why")")
}

# The JavaScript dependencies of the MCP interop, conformance and adapter
# tests (scripts/npm-install.sh: instant when the lock files are unchanged).
npm_deps() {
  if [[ " $SKIP " == *" npm "* ]]; then
    skip "npm" "AMPOULE_SKIP (the MCP interop and adapter tests will say they skip)"; return
  fi
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if ! command -v npm >/dev/null || ((major < 20)); then
    skip "npm" "Node.js >= 20 with npm not found (the MCP interop and adapter tests will say they skip)"
    return
  fi
  step "npm: JavaScript dependencies" bash "$ROOT/scripts/npm-install.sh"
}

# The compiler cache (scripts/build-config.sh): a run after a small change
# recompiles only what changed, and the repro phase reuses build/'s objects.
# AMPOULE_CCACHE=0 turns it off.
# shellcheck source=scripts/build-config.sh
source "$ROOT/scripts/build-config.sh"
use_compiler_cache "$ROOT"
((${#CACHE_ARGS[@]})) && ccache --zero-stats >/dev/null

# configure_and_build DIR [CMAKE_ARGS...] [-- TARGETS...]: every target by default.
configure_and_build() {
  local dir="$1"; shift
  local args=() targets=()
  while (($#)) && [[ "$1" != -- ]]; do args+=("$1"); shift; done
  (($#)) && { shift; targets=("$@"); }
  mkdir -p "$dir"
  cmake -S "$ROOT" -B "$dir" -G Ninja "${CACHE_ARGS[@]}" "${args[@]}" >"$dir/configure.log" 2>&1 \
    || { cat "$dir/configure.log"; return 1; }
  ninja -C "$dir" -j"$JOBS" "${targets[@]}"
}

# build/: the release configuration, in the release environment (both from
# scripts/build-config.sh), so the repro phase can reuse its objects.
build_release() {
  ( release_env && configure_and_build "$OUT/build" "${BUILD_FOLDER_CMAKE_ARGS[@]}" )
}

# --no-tests=error: a build folder configured without tests (AMPOULE_TESTS=OFF)
# must fail the phase, not pass it with nothing run.
run_ctest() {
  local dir="$1"; shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$JOBS" --timeout 900 "$@"
}

# The kernel the tests run guests on: the guest runtimes (built from Debian
# source packages, cached by their inputs: scripts/build-runtimes.sh) packed
# with build/'s static engine into build/share/ampoule/ampoule.kernel, where
# build/bin/ampoule looks by default. The reproducible, pinned kernel is
# scripts/build-kernel.sh --strict (the "repro" phase).
pack_test_kernel() {
  if [[ -n "$RUNTIMES_PID" ]]; then
    wait "$RUNTIMES_PID" || { cat "$OUT/build/runtimes-build.log"; return 1; }
    RUNTIMES_PID=""
  fi
  bash "$ROOT/scripts/pack-kernel.sh" "$OUT/build"
}

# The guest runtimes are built beside the release compile: on a cold cache
# they take minutes, much of it on one core (sqlite's one-file compile,
# CPython's configure), which the compile's jobs then fill. The kernel phase
# waits for them; on a warm cache this finds them in a second.
RUNTIMES_PID=""
start_runtimes_build() {
  [[ " $SKIP " == *" build "* || " $SKIP " == *" kernel "* ]] && return 0
  # In build/, which git ignores: a log beside the sources would make the
  # tree unclean, and the repro phase refuses an unclean tree.
  mkdir -p "$OUT/build"
  echo "guest runtimes: building beside the release compile (log: $OUT/build/runtimes-build.log)"
  bash "$ROOT/scripts/build-runtimes.sh" --jobs "$JOBS" >"$OUT/build/runtimes-build.log" 2>&1 &
  RUNTIMES_PID=$!
}

# ----------------------------------------------------------------------------
# fuzzing

fuzz_targets() {
  local f
  for f in "$ROOT"/fuzz/*_fuzz.cc; do
    [[ -f "$f" ]] && basename "$f" .cc
  done
}

# Fills $1 with seeds for target $2: fuzz/corpus/<target>/ (*.wat compiled
# with wat2wasm, other files copied), and for wasm targets the WASI test
# programs of build/ and modules from a few core spec test files.
make_seeds() {
  local out="$1" target="$2"
  rm -rf "$out" && mkdir -p "$out"
  local f
  for f in "$ROOT/fuzz/corpus/$target"/*; do
    [[ -f "$f" ]] || continue
    if [[ "$f" == *.wat ]]; then
      wat2wasm "$f" -o "$out/$(basename "$f" .wat).wasm" || return 1
    else
      cp "$f" "$out/"
    fi
  done
  [[ "$target" == wasm_* ]] || return 0
  # Guest programs the tests compiled (tests/wasi/*.c, built in build/).
  for f in "$OUT/build/wasi-guests"/*.wasm; do
    [[ -f "$f" ]] && cp "$f" "$out/test-$(basename "$f")"
  done
  local spec="$ROOT/../shared/conformance/wasm-spec-2.0"
  if [[ -d "$spec" ]]; then
    local tmp="$out.spec"
    rm -rf "$tmp" && mkdir -p "$tmp"
    local w
    for w in block br_table call_indirect memory_grow bulk table_grow global loop conversions \
             linking ref_func elem data select; do
      [[ -f "$spec/$w.wast" ]] || continue
      wast2json "$spec/$w.wast" -o "$tmp/$w.json" >/dev/null 2>&1 || continue
    done
    for f in "$tmp"/*.wasm; do [[ -f "$f" ]] && cp "$f" "$out/spec-$(basename "$f")"; done
    rm -rf "$tmp"
  else
    echo "note: $spec not found; seeding from fuzz/corpus/$target only"
  fi
  return 0
}

# fuzz_one TARGET SECONDS: one target from its seeds and its kept corpus;
# writes build-asan/fuzz/TARGET.log and prints what the run found.
fuzz_one() {
  local t="$1" seconds="$2" dir="$OUT/build-asan/fuzz" bin="$OUT/build-asan/bin"
  local seeds="$dir/seeds/$t" corpus="$dir/corpus/$t" log="$dir/$t.log"
  make_seeds "$seeds" "$t" || { echo "$t: could not build the seed corpus"; return 1; }
  mkdir -p "$corpus"
  echo "$t: ${seconds}s from $(ls "$seeds" | wc -l) seeds (+$(ls "$corpus" | wc -l) in build-asan/fuzz/corpus/$t)"
  if "$bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$dir/artifacts/$t-" "$corpus" "$seeds" >"$log" 2>&1; then
    grep -E '^(Done|#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed "s/^/$t: /"
  else
    echo "$t: FAILED; last lines of $log:"
    tail -n 60 "$log"
    echo "$t: reproduce with: $bin/$t $dir/artifacts/$t-<file>"
    return 1
  fi
}

# Every target for its share of FUZZ_SECONDS (at least 5 s), JOBS at a time
# (each libFuzzer process uses one core); each target's lines are printed
# together, in the targets' order.
run_fuzz() {
  local dir="$OUT/build-asan/fuzz" targets=("$@")
  local per=$((FUZZ_SECONDS * JOBS / ${#targets[@]}))
  ((per < 5)) && per=5
  mkdir -p "$dir/artifacts" "$dir/reports"
  local i rc=0 pids=()
  for ((i = 0; i < ${#targets[@]}; i++)); do
    fuzz_one "${targets[i]}" "$per" >"$dir/reports/$i" 2>&1 &
    pids[i]=$!
    # Keep JOBS running: wait for the oldest before starting more.
    if ((i >= JOBS - 1)); then wait "${pids[i - JOBS + 1]}" || rc=1; fi
  done
  for ((i = ${#targets[@]} - JOBS + 1; i < ${#targets[@]}; i++)); do
    ((i >= 0)) && { wait "${pids[i]}" || rc=1; }
  done
  for ((i = 0; i < ${#targets[@]}; i++)); do cat "$dir/reports/$i"; done
  rm -rf "$dir/reports"
  return $rc
}

# The sanitizer build is clang's when clang-14 and libFuzzer's runtime are
# installed (scripts/setup.sh installs both): then it also holds the fuzz
# targets. Sets SAN_WHY to why not, when it is not.
SAN_WHY=""
if ! command -v clang++-14 >/dev/null; then
  SAN_WHY="clang++-14 not found (install clang-14 libclang-rt-14-dev: scripts/setup.sh)"
elif ! compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null; then
  SAN_WHY="libFuzzer runtime not found (install libclang-rt-14-dev: scripts/setup.sh)"
fi

# build-asan/: -O0 with assertions on and line tables for the reports; the
# engine and the WASI host at -O1 (CMakeLists.txt), whose tests interpret
# guests. -O1 throughout took twice as long to compile on a cold run;
# docs/decisions/0059-cold-ci-time.md. A folder configured for the other
# compiler is configured anew.
build_sanitized() {
  local dir="$OUT/build-asan" cc cxx args flags
  if [[ -z "$SAN_WHY" ]]; then
    cc=clang-14 cxx=clang++-14 flags="-O0 -gline-tables-only" args=(-DAMPOULE_FUZZ=ON)
  else
    echo "note: GCC's sanitizers, no fuzz targets: $SAN_WHY"
    cc=gcc cxx=g++ flags="-O0 -g1" args=(-DAMPOULE_SANITIZE=ON -DAMPOULE_FUZZ=OFF)
  fi
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=.*/$cxx\$" "$dir/CMakeCache.txt"; then
    echo "note: $dir was configured for another compiler; configuring it anew"
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
  CC=$cc CXX=$cxx configure_and_build "$dir" "${args[@]}" -DAMPOULE_TESTS=ON -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=$flags" "-DCMAKE_C_FLAGS_DEBUG=$flags"
}

fuzz_phase() {
  if [[ " $SKIP " == *" fuzz "* ]]; then skip "fuzz" "AMPOULE_SKIP"; return; fi
  if ((FUZZ_SECONDS <= 0)); then skip "fuzz" "AMPOULE_FUZZ_SECONDS=0"; return; fi
  if [[ -n "$SAN_WHY" ]]; then skip "fuzz" "$SAN_WHY"; return; fi
  if ((!ASAN_BUILT)); then skip "fuzz" "the sanitizer build failed"; return; fi
  if ! command -v wat2wasm >/dev/null; then
    skip "fuzz" "wat2wasm not found for the seed corpus (install wabt: scripts/setup.sh)"; return
  fi
  local targets
  mapfile -t targets < <(fuzz_targets)
  if ((${#targets[@]} == 0)); then skip "fuzz" "no fuzz/*_fuzz.cc targets"; return; fi
  step "fuzz: run (${FUZZ_SECONDS}s)" run_fuzz "${targets[@]}"
}

# ----------------------------------------------------------------------------

total_start=$SECONDS
echo "ampoule tests: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no git'), ${JOBS} jobs"

if [[ " $SKIP " == *" build "* ]]; then
  skip "build" "AMPOULE_SKIP"
# Configured explicitly: build/ is shared with the main job (scripts/demo.sh
# configures it the same way and builds only what the demo needs), so either
# command may run first without leaving the other a folder without tests.
elif start_runtimes_build; step "build: compile" build_release; then
  if [[ " $SKIP " == *" kernel "* ]]; then
    skip "kernel" "AMPOULE_SKIP (tests that run guests will say they skip)"
  else
    step "kernel: runtimes + pack" pack_test_kernel
  fi
  npm_deps
  # The whole-command tests run once: on the sanitized binaries (asan, below),
  # except these labels, whose point is the release build: the guest corpora
  # on the engine at full speed, the release bundle, the sealed image's static
  # binaries, the conformance suites on the shipped engine. Without the asan
  # phase, every test runs here. docs/decisions/0059-cold-ci-time.md.
  if [[ " $SKIP " == *" asan "* ]]; then
    step "build: ctest" run_ctest "$OUT/build"
  else
    step "build: ctest (release labels)" run_ctest "$OUT/build" -L "$RELEASE_LABELS"
  fi
else
  skip "build: ctest" "the build failed"
fi
# The sanitizer builds' engine is not static and cannot run in a jail; their
# tests run guests on the kernel packed from the default build.
if [[ -f "$OUT/build/share/ampoule/ampoule.kernel" ]]; then
  export AMPOULE_KERNEL="$OUT/build/share/ampoule/ampoule.kernel"
fi

# build-asan/ serves two phases: its ctest (asan) and its fuzz targets (fuzz).
ASAN_BUILT=0
if [[ " $SKIP " == *" asan "* && ( " $SKIP " == *" fuzz "* || -n "$SAN_WHY" || FUZZ_SECONDS -le 0 ) ]]; then
  skip "asan" "AMPOULE_SKIP (the unit tests, which run only in this build, did not run)"
elif step "asan: compile" build_sanitized; then
  ASAN_BUILT=1
  if [[ " $SKIP " == *" asan "* ]]; then
    skip "asan: ctest" "AMPOULE_SKIP (built for the fuzz targets; the unit tests did not run)"
  else
    # Left out: the corpus tests (label corpus) spend their time in the
    # kernel's engine, which is the release build's and not sanitized (the
    # host side they use is covered by run_program_test and verify_cli); the
    # release bundle's test (label package) checks scripts/package.sh, and
    # would only pack and unpack the sanitized binaries, several times larger.
    step "asan: ctest" run_ctest "$OUT/build-asan" -LE "corpus|package"
  fi
else
  skip "asan: ctest" "the build failed"
fi

# Determinism across optimisation levels: the engine at -O0 must give the
# same output and fuel as the default (-O2) build on every guest program.
if [[ " $SKIP " == *" determinism "* ]]; then
  skip "determinism" "AMPOULE_SKIP"
elif [[ ! -x "$OUT/build/bin/ampoule-wasm-run" || ! -d "$OUT/build/wasi-guests" ]]; then
  skip "determinism" "the default build or its WASI guest programs are missing"
elif step "determinism: compile -O0" configure_and_build "$OUT/build-o0" -DAMPOULE_TESTS=OFF \
       -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g0" -- ampoule-wasm-run; then
  step "determinism: -O2 vs -O0" bash "$ROOT/tests/determinism.sh" "$OUT/build/bin/ampoule-wasm-run" \
    "$OUT/build-o0/bin/ampoule-wasm-run" "$OUT/build/wasi-guests"
else
  skip "determinism: -O2 vs -O0" "the -O0 build failed"
fi

fuzz_phase

# The pinned, reproducible kernel and host tools (docs/kernel.md): rebuilt from this
# commit in their own folders and compared with kernel/pins.txt. Needs a
# clean tree (it refuses uncommitted changes, as an auditor's rebuild would).
if [[ " $SKIP " == *" repro "* ]]; then
  skip "repro" "AMPOULE_SKIP"
elif [[ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]]; then
  skip "repro" "the tree has uncommitted changes; --strict rebuilds need a clean checkout"
else
  # Through the compiler cache when there is one: build/ compiled the same
  # objects with the same flags (scripts/build-config.sh).
  ((${#CACHE_ARGS[@]})) && export AMPOULE_REPRO_CCACHE=1
  step "repro: build-kernel.sh --strict" bash "$ROOT/scripts/build-kernel.sh" --strict \
    --out "$OUT/build-kernel/share/ampoule"
  step "repro: build-host-tools.sh --strict" bash "$ROOT/scripts/build-host-tools.sh" --strict \
    --reference "$OUT/build"
  # The sealed image from those rebuilt binaries, byte for byte as build/'s.
  step "repro: image" bash "$ROOT/scripts/image/reproduce.sh" --reference "$OUT/build" \
    --kernel "$OUT/build-kernel/share/ampoule/ampoule.kernel"
fi

say "summary"
printf '%s\n' "${summary[@]}"
if ((${#CACHE_ARGS[@]})); then
  echo "compiler cache ($CCACHE_DIR): $(ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { hit += $2 }
    $1 == "cache_miss" { miss = $2 }
    END { printf "%d hits, %d misses", hit, miss }')"
fi
children_cpu
printf '%-28s %-8s %5ds wall %6ds cpu\n' "total" "$( ((failed)) && echo FAILED || echo ok)" \
  $((SECONDS - total_start)) "$CHILD_CPU"
exit $failed
