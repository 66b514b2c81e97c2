#!/usr/bin/env bash
# The sandbox storm: sealed tool calls fired at one node at once, beside the
# same tool as a native program per call (bench/storm.py says what and how).
set -euo pipefail

cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { printf 'storm: python3 is not installed\n' >&2; exit 2; }
exec python3 bench/storm.py "$@"
