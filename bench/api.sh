#!/usr/bin/env bash
# The control API benchmark (docs/operator-guide.md): the memory of `volent node` with idle
# agents, and the latency of its API at 10,000 agents, beside nginx serving static JSON files
# of the same sizes, measured in the same run with the same load.
#
#   bash bench/api.sh [--build DIR | --volent BIN] [--quick]
#
# Runs bench/api.py from the repository root with the same options (a relative DIR or BIN is
# read from there); its docstring says what is measured and how. --quick (or
# API_BENCH_QUICK=1): a smoke run, not figures to quote.
#
# Environment: API_BENCH_RUNS (default 5, at least 3), API_BENCH_SECONDS (default 5),
# API_BENCH_CONNECTIONS (default 4), API_BENCH_AGENTS (default 10000), VOLENT (default
# build/bin/volent; --build DIR means DIR/bin/volent).
# Needs: python3, wrk, nginx (/usr/sbin/nginx).
set -euo pipefail

cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { printf 'api: python3 is not installed\n' >&2; exit 2; }
exec python3 bench/api.py "$@"
