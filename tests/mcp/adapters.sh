#!/usr/bin/env bash
# The agent adapters (adapters/): compiles them and runs their tests with the
# real OpenAI Agents SDK and Claude Agent SDK, the real `ampoule gate submit`
# on real receipts, and `ampoule mcp` over stdio and HTTP. No network, no
# API keys.
#
#   tests/mcp/adapters.sh --ampoule BIN [--kernel K]
#
# Prints `skipped: REASON` and exits 0 without node, node_modules
# (scripts/npm-install.sh), the mcp command or a kernel.
NPM_DIR="$(cd "$(dirname "$0")/../.." && pwd)/adapters"
. "$(dirname "$0")/common.sh"
mcp_start adapters.sh "$@"
cd "$NPM_DIR" || exit 1
node_modules/.bin/tsc -p . || { echo "adapters: the TypeScript does not compile"; exit 1; }
exec node --test --test-concurrency=1 dist/test/*.test.js
