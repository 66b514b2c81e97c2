#!/usr/bin/env bash
# Limits of `ampoule run`: fuel, memory cap, safety net, no network, no host
# files, output cap, exit statuses. See tests/run/limits.py and
# docs/testing-runs.md.
#
#   tests/run/limits.sh [--backend auto|run|wasm] [--ampoule BIN] [--kernel K] [--insecure-no-jail] [CASE...]
#
# Prints `ok`/`FAIL` per case and `limits: N passed, M failed`; exit 1 on a
# failure. `skipped: REASON` (exit 0) when nothing can run guests here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 0; }
exec python3 "$here/limits.py" "$@"
