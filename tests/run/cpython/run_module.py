# Runs one module of CPython's own regression tests inside the guest.
#
# stdin names the module (e.g. "test.test_sqlite3"); /input/cpython-tests.zip
# holds Lib/test's files (scripts/build-runtimes.sh packs them). The tests are
# unpacked into the writable /tmp and run with unittest from a scratch folder,
# as regrtest would with no -u option: resource-hungry tests ("cpu",
# "largefile", "network") skip. Failures print their tracebacks; the last line
# of stdout is one JSON object the host reads (tests/run/cpython_stdlib_test.py).
import json
import os
import sys
import types
import unittest
import zipfile

# The guest's CPython is built without its C test modules (--disable-test-modules:
# they would ship in every kernel). test_sqlite3's test_dbapi imports only two
# C limits from _testcapi, the same on wasm32 as on 64-bit Linux; it gets
# them from this stand-in. No other module sees it: datetimetester and
# test.support decide on their own whether _testcapi exists.
C_LIMITS_FOR = {"test.test_sqlite3": {"INT_MAX": 2**31 - 1, "ULLONG_MAX": 2**64 - 1}}


class Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test.id())


def main():
    module = sys.stdin.read().strip()
    with zipfile.ZipFile("/input/cpython-tests.zip") as tests:
        tests.extractall("/tmp/cpython")
    sys.path.insert(0, "/tmp/cpython")
    os.makedirs("/tmp/work")
    os.chdir("/tmp/work")

    if module in C_LIMITS_FOR:
        sys.modules["_testcapi"] = types.ModuleType("_testcapi")
        vars(sys.modules["_testcapi"]).update(C_LIMITS_FOR[module])
    from test import support
    support.use_resources = []  # regrtest's default: no optional resources
    suite = unittest.defaultTestLoader.loadTestsFromName(module)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=0, resultclass=Result)
    result = runner.run(suite)
    summary = {
        "module": module,
        "run": result.testsRun,
        "passed": len(result.passed),
        "failures": [t.id() for t, _ in result.failures],
        "errors": [t.id() for t, _ in result.errors],
        "unexpected_successes": [t.id() for t in result.unexpectedSuccesses],
        "expected_failures": len(result.expectedFailures),
        "skipped": [[t.id(), str(reason)] for t, reason in result.skipped],
    }
    sys.stdout.flush()
    print("\n" + json.dumps(summary, sort_keys=True))


main()
