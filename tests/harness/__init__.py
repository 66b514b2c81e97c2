"""Shared code of the Python script tests (docs/testing-runs.md).

A test (tests/<area>/<name>_test.py) puts tests/ on sys.path and imports
what it needs from here:

    binaries     skip_unless_runs(), kernel_or_skip(): what the test needs, or skipped
    checks       Checks (ok/FAIL lines and the closing summary), skip(), fail()
    servers      Server, start_server(): a command that prints "listening on", started and stopped
    http_client  request(), raw_exchange(), json_body()
    cleanup      work_folder(), and the exit-time stopping of every child process

Standard library only.
"""
