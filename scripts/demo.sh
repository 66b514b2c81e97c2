#!/usr/bin/env bash
# The main job: build ampoule and its kernel, run an agent's Python program
# sealed, sign a receipt, check it off the machine's trust (ampoule-verify),
# replay it, and show that a tampered receipt fails.
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
kernel="$(build/bin/ampoule kernel path)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
build/bin/ampoule keygen -o "$work/signing.key" >/dev/null

step "ampoule run examples/refund_total.py --input examples/orders.csv --key ... -o receipt.json"
build/bin/ampoule run examples/refund_total.py --input examples/orders.csv \
  --key "$work/signing.key" -o "$work/receipt.json" --record "$work/record.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; print("status", r["status"], "stop", r["stop"], "fuel", r["fuel_used"])' "$work/record.json"

step "ampoule-verify: signature, kernel, program and input digests"
build/bin/ampoule-verify "$work/receipt.json" --key "$work/signing.key.pub" --kernel "$kernel" \
  --program examples/refund_total.py --input orders.csv=examples/orders.csv

step "ampoule-verify --replay: run it again on the pinned kernel and compare"
build/bin/ampoule-verify --replay "$work/receipt.json" --key "$work/signing.key.pub" --kernel "$kernel" \
  --program examples/refund_total.py --input orders.csv=examples/orders.csv

step "a receipt with one signed byte changed (the output digest) must fail"
python3 - "$work/receipt.json" "$work/forged.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
stmt = json.loads(base64.b64decode(env["payload"]))
stmt["subject"][0]["digest"]["sha256"] = "0" * 64
env["payload"] = base64.b64encode(json.dumps(stmt, sort_keys=True, separators=(",", ":")).encode()).decode()
json.dump(env, open(sys.argv[2], "w"))
PY
set +e
build/bin/ampoule-verify "$work/forged.json" --key "$work/signing.key.pub" --kernel "$kernel" 2>/dev/null
echo "exit status $? (1 = FAILED)"
