#!/usr/bin/env bash
# The main job (docs/demo.md): build, then tell two stories, every step a real
# command printed with its output and the check of its outcome:
#
#   1. Ampoule's refund demo (`ampoule demo refund`): an agent's Python
#      program computes a refund from an order export, sealed, with a signed
#      receipt; the trust gate verifies and replays it and sends it; an output
#      altered after the run is refused, an altered amount held, the same
#      refund submitted twice goes out once; the code is checked against a
#      held-out export.
#   2. The Volent story (scripts/demo-volent.py): a node runs agents against
#      `volent mock-model` and a local order service; a tool call goes through
#      the egress gate, SSRF attempts are denied and journaled, the node is
#      killed with SIGKILL mid-run and restarted, every side effect is applied
#      once, and the journal verifies.
#
# build/ is configured as scripts/test.sh configures it (scripts/build-config.sh:
# the release build, tests on, ccache when installed), so the demo and the tests share one build folder
# in either order; only the demo's targets are built here. The first run
# builds them and the guest runtimes from Debian source packages (a few
# minutes each; cached afterwards, see scripts/build-runtimes.sh).
#
# Both working folders are kept under one ${TMPDIR:-/tmp}/ampoule-demo.XXXXXX
# folder (refund/ and volent/), printed at the end. A summary ends the demo;
# exit 0 only if every check of both stories held.
#
# Environment: AMPOULE_JOBS (parallel build jobs, default 2), AMPOULE_CCACHE=0
# (build without the compiler cache).
set -uo pipefail
cd "$(dirname "$0")/.."
readonly ROOT="$PWD"

step() { printf '\n== %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

# The release configuration and the compiler cache, as scripts/test.sh sets them.
# shellcheck source=scripts/build-config.sh
source "$ROOT/scripts/build-config.sh"
use_compiler_cache "$ROOT"

step "building ampoule, ampoule-verify, the engine and volent (build/, configured as scripts/test.sh does)"
mkdir -p build
( release_env && cmake -S . -B build -G Ninja "${BUILD_FOLDER_CMAKE_ARGS[@]}" "${CACHE_ARGS[@]}" \
    >build/configure.log 2>&1 ) || { cat build/configure.log; die "configuring build/ failed"; }
( release_env && ninja -C build -j"${AMPOULE_JOBS:-2}" ampoule ampoule-verify ampoule-engine volent ) ||
  die "the build failed"

step "building the guest runtimes (python.wasm, js.wasm; cached) and packing the kernel"
bash scripts/pack-kernel.sh build | tail -n 1 ||
  die "packing the kernel failed"

work="$(mktemp -d "${TMPDIR:-/tmp}/ampoule-demo.XXXXXX")"
results=()
story() {
  local name="$1" start=$SECONDS status=ok; shift
  step "$name"
  "$@" || status=FAILED
  results+=("$(printf '%-22s %-7s %4ds' "$name" "$status" $((SECONDS - start)))")
  [[ $status == ok ]]
}

failed=0
story "ampoule demo refund" build/bin/ampoule demo refund --dir "$work/refund" \
  --kernel build/share/ampoule/ampoule.kernel || failed=1
story "the Volent story" python3 scripts/demo-volent.py --volent build/bin/volent \
  --kernel build/share/ampoule/ampoule.kernel --dir "$work/volent" || failed=1

step "demo summary"
printf '  %s\n' "${results[@]}"
echo "working folders kept: $work/refund $work/volent"
exit "$failed"
