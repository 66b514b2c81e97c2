#!/usr/bin/env bash
# The served OpenAPI document against an OpenAPI 3.1 validator: tests/volent/openapi_test.py (CTest runs it directly).
exec python3 "$(dirname "$0")/openapi_test.py" "$@"
