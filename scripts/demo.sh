#!/usr/bin/env bash
# The main job: build ampoule and its kernel, then run the refund demo
# (docs/demo.md): an agent's Python program computes a refund from an order
# export, sealed, with a signed receipt; the trust gate verifies and replays
# it and sends it; an output altered after the run is refused, an altered
# amount held, the same refund submitted twice goes out once; the code is
# checked against a held-out export. Every step is a real command, printed
# with its output. Exits 0 only if every step gave the expected decision.
#
# The first run builds the guest runtimes from Debian source packages (a few
# minutes; cached afterwards, see scripts/build-runtimes.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "building ampoule, ampoule-verify and the engine (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPOULE_TESTS=OFF >/dev/null
ninja -C build -j2 ampoule ampoule-verify ampoule-engine >/dev/null

step "building the guest runtimes (python.wasm, js.wasm; cached) and packing the kernel"
runtimes="$(bash scripts/build-runtimes.sh | tail -n 1)"
mkdir -p build/share/ampoule
build/bin/ampoule kernel pack -o build/share/ampoule/ampoule.kernel \
  --engine build/bin/ampoule-engine --runtimes "$runtimes" --snapshots | tail -n 1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step "ampoule demo refund"
build/bin/ampoule demo refund --dir "$work/refund" --kernel build/share/ampoule/ampoule.kernel
