#!/usr/bin/env bash
# Determinism check: every workload, run twice on each of two engine builds
# (e.g. -O2 and -O0 with sanitizers), must give byte-identical output, exit
# code, fuel and stop reason.
#
# usage: tests/determinism.sh RUNNER_A RUNNER_B WASM_OR_DIR...
# A runner is a build of `ampoule-wasm-run` (`ampoule wasm run` alone).
# A workload is a .wasm file; WORKLOAD.args (one argument per line) beside
# it gives its arguments, WORKLOAD.opts (one per line) options for the
# runner (e.g. --dir for a program that writes files). Each run gets 3e8 fuel, so a spinning guest stops
# on fuel the same way everywhere. Prints `determinism: N passed, N failed`.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 RUNNER_A RUNNER_B WASM_OR_DIR..." >&2; exit 2; }
a=$1 b=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

workloads=()
for p in "$@"; do
  if [ -d "$p" ]; then while IFS= read -r f; do workloads+=("$f"); done < <(find "$p" -name '*.wasm' | sort)
  elif [ -f "$p" ]; then workloads+=("$p")
  else echo "skip: $p does not exist"; fi
done

run() {  # run BIN WASM OUT
  local args=() opts=()
  [ -f "${2%.wasm}.args" ] && mapfile -t args < "${2%.wasm}.args"
  [ -f "${2%.wasm}.opts" ] && mapfile -t opts < "${2%.wasm}.opts"
  "$1" --stats --seed 7 --fuel 300000000 "${opts[@]}" "$2" -- "${args[@]}" > "$3.out" 2> "$3.err" < /dev/null
  echo "exit $?" >> "$3.err"
}

passed=0 failed=0
for w in "${workloads[@]}"; do
  run "$a" "$w" "$tmp/a1"; run "$a" "$w" "$tmp/a2"; run "$b" "$w" "$tmp/b1"
  ok=1
  for other in a2 b1; do
    cmp -s "$tmp/a1.out" "$tmp/$other.out" && cmp -s "$tmp/a1.err" "$tmp/$other.err" || ok=0
  done
  if [ $ok = 1 ]; then
    passed=$((passed + 1)); echo "same: $w ($(grep -m1 -i fuel "$tmp/a1.err" || true))"
  else
    failed=$((failed + 1)); echo "DIFFERENT: $w"
    diff "$tmp/a1.err" "$tmp/b1.err" | head -5
  fi
done
echo "determinism: $passed passed, $failed failed"
[ $failed = 0 ] && [ $passed -gt 0 ]
