#!/usr/bin/env bash
# `ampoule mcp` with the official MCP TypeScript client (tests/mcp/interop/):
# stdio and Streamable HTTP sessions, run_python, the receipt verified by
# ampoule-verify and by verify_receipt with replay, and bad HTTP input.
#
#   tests/mcp/interop.sh --ampoule BIN --verify AMPOULE_VERIFY_BIN [--kernel K]
#
# Prints `skipped: REASON` and exits 0 without node, node_modules
# (scripts/npm-install.sh), the mcp command or a kernel.
NPM_DIR="$(cd "$(dirname "$0")" && pwd)/interop"
. "$(dirname "$0")/common.sh"
mcp_start interop.sh "$@"
[[ -n "${AMPOULE_VERIFY:-}" ]] || { echo "usage: interop.sh --ampoule BIN --verify BIN [--kernel K]" >&2; exit 2; }
cd "$NPM_DIR" && exec node --test --test-concurrency=1 test/*.test.mjs
