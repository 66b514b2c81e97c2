#!/usr/bin/env bash
# The chaos test, kept here for the command lines in the docs: tests/volent/chaos_test.py.
# The interpreter itself, not a shim that may run it as a child, so a signal to this process reaches it.
exec "$(python3 -c 'import sys; print(sys.executable)')" "$(dirname "$0")/../tests/volent/chaos_test.py" "$@"
