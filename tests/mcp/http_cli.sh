#!/usr/bin/env bash
# `ampoule mcp --http` from the outside: tests/mcp/http_cli_test.py (CTest runs it directly).
exec python3 "$(dirname "$0")/http_cli_test.py" "$@"
