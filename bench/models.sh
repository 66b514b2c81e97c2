#!/usr/bin/env bash
# The model-call benchmark (docs/models.md): 1,500 model calls in flight at once through the
# node's egress gate against the mock model, on this machine, beside the same calls made by a
# plain client (Node's http) in the same run.
#
#   bash bench/models.sh [--build DIR | --volent BIN] [--quick]
#
# Runs bench/models.py from the repository root with the same options (a relative DIR or BIN
# is read from there); its docstring says what is measured and how. --quick (or
# MODELS_BENCH_QUICK=1): a smoke run, not figures to quote.
#
# Environment: MODELS_BENCH_CALLS (default 1500), MODELS_BENCH_LATENCY_MS (default 5000),
# MODELS_BENCH_RUNS (default 3), VOLENT (default build/bin/volent; --build DIR means
# DIR/bin/volent).
# Needs: python3; node (Debian nodejs) for the peer (skipped, with a line saying so, when
# missing).
set -euo pipefail

cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { printf 'models: python3 is not installed\n' >&2; exit 2; }
exec python3 bench/models.py "$@"
