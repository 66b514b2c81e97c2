#!/usr/bin/env bash
# The guest corpus: every program in tests/corpus/ through ampoule, compared
# with native python3.11 (Python) or its .expected output (JavaScript), each
# run twice for determinism, plus the seed check. See docs/testing-runs.md.
#
#   tests/run/corpus.sh [--backend auto|run|wasm] [--ampoule BIN] [--kernel K]
#                       [--runtimes DIR] [--no-determinism] [--insecure-no-jail] [PROGRAM...]
#
# Prints `ok`/`FAIL` per program and `corpus: N passed, M failed`; exit 1 on
# a failure. `skipped: REASON` (exit 0) when nothing can run guests here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 0; }
exec python3 "$here/corpus.py" "$@"
