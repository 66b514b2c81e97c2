# Whole-command tests, run by ctest.

# The WebAssembly core spec test suite (see docs/conformance.md). The scripts
# live outside the repository; point AMPOULE_CONFORMANCE_DIR elsewhere to use
# another copy. Conversions are cached in the build tree.
set(AMPOULE_CONFORMANCE_DIR "${CMAKE_SOURCE_DIR}/../shared/conformance/wasm-spec-2.0"
    CACHE PATH "Folder of the WebAssembly 2.0 core spec test scripts (*.wast)")

if(EXISTS "${AMPOULE_CONFORMANCE_DIR}")
  add_test(NAME wasm_spectest
           COMMAND ampoule wasm spectest --verbose --cache "${CMAKE_BINARY_DIR}/spectest-cache"
                   "${AMPOULE_CONFORMANCE_DIR}")
  set_tests_properties(wasm_spectest PROPERTIES TIMEOUT 1800 LABELS conformance)
else()
  # Still listed, so a run without the suite says so instead of passing quietly.
  add_test(NAME wasm_spectest
           COMMAND ${CMAKE_COMMAND} -E echo
                   "skipped: spec test folder ${AMPOULE_CONFORMANCE_DIR} not found; set AMPOULE_CONFORMANCE_DIR")
  set_tests_properties(wasm_spectest PROPERTIES SKIP_REGULAR_EXPRESSION "^skipped: " LABELS conformance)
endif()

# The WASI preview 1 test suite (docs/conformance.md), each test through
# `ampoule wasm run` on a fresh copy of its folder. The script prints a
# "skipped: " line when the suite is absent.
set(AMPOULE_WASI_TESTSUITE_DIR "${CMAKE_SOURCE_DIR}/../shared/conformance/wasi-testsuite"
    CACHE PATH "Folder of the WASI preview 1 test suite (c/, assemblyscript/)")
add_python_test(wasi_testsuite wasi/wasi_testsuite.py --ampoule $<TARGET_FILE:ampoule>
                "${AMPOULE_WASI_TESTSUITE_DIR}")
set_tests_properties(wasi_testsuite PROPERTIES TIMEOUT 1800 LABELS conformance)

# Guest corpus and limits of `ampoule run` (docs/testing-runs.md). Each script
# prints "skipped: REASON" when it cannot run guests here (no kernel, no
# runtime build). corpus_runtimes runs the same corpus on the runtime build
# through `ampoule wasm run`, to tell a runtime difference from a run-path one.
find_program(AMPOULE_PYTHON3 NAMES python3)
if(AMPOULE_PYTHON3)
  foreach(check IN ITEMS corpus limits)
    add_test(NAME ${check}_run
             COMMAND ${CMAKE_SOURCE_DIR}/tests/run/${check}.sh --backend run --ampoule $<TARGET_FILE:ampoule>)
    set_tests_properties(${check}_run PROPERTIES TIMEOUT 3600 LABELS corpus
                         SKIP_REGULAR_EXPRESSION "^skipped: ")
  endforeach()
  # CPython's own tests of sqlite3, bz2, lzma, tempfile, csv, hashlib, zoneinfo
  # and datetime inside the guest (docs/testing-runs.md).
  add_python_test(cpython_stdlib run/cpython_stdlib_test.py --backend run --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(cpython_stdlib PROPERTIES TIMEOUT 3600 LABELS corpus)
  # Each program once: corpus_run checks that two runs agree, on the same
  # engine and runtimes; here a difference from native output is the point.
  add_test(NAME corpus_runtimes
           COMMAND ${CMAKE_SOURCE_DIR}/tests/run/corpus.sh --backend wasm --no-determinism
                   --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(corpus_runtimes PROPERTIES TIMEOUT 3600 LABELS corpus
                       SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# ampoule-verify from the outside (tests/verify/verify_cli.sh): exit codes and
# result lines of docs/cli.md with real receipts when a kernel is found (else only
# the cases that need none), and the replay round trip over the corpora.
add_test(NAME verify_cli
         COMMAND ${CMAKE_SOURCE_DIR}/tests/verify/verify_cli.sh --ampoule $<TARGET_FILE:ampoule>
                 --verify $<TARGET_FILE:ampoule-verify>)
set_tests_properties(verify_cli PROPERTIES TIMEOUT 600 SKIP_REGULAR_EXPRESSION "^skipped: ")
add_test(NAME verify_corpus_replay
         COMMAND ${CMAKE_SOURCE_DIR}/tests/verify/verify_cli.sh --ampoule $<TARGET_FILE:ampoule>
                 --verify $<TARGET_FILE:ampoule-verify> --corpus ${CMAKE_SOURCE_DIR}/tests/corpus)
set_tests_properties(verify_corpus_replay PROPERTIES TIMEOUT 3600 LABELS corpus
                     SKIP_REGULAR_EXPRESSION "^skipped: ")

# `ampoule kernel pack|info|path` (tests/kernel/kernel_cli_test.cmake).
add_test(NAME kernel_cli
         COMMAND ${CMAKE_COMMAND} -DAMPOULE=$<TARGET_FILE:ampoule> -DWORK=${CMAKE_BINARY_DIR}/kernel-cli-test
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/kernel/kernel_cli_test.cmake)

# Deep recursion is the guest's own catchable error in both runtimes.
add_test(NAME runtime_recursion COMMAND ${CMAKE_SOURCE_DIR}/tests/run/recursion.sh $<TARGET_FILE:ampoule>)
set_tests_properties(runtime_recursion PROPERTIES TIMEOUT 600 LABELS corpus
                     SKIP_REGULAR_EXPRESSION "^skipped: ")

# The trust gate from the outside (tests/gate/, docs/gate.md): every rule with
# real receipts, exactly once under concurrent submissions and under SIGKILL
# at each kill point and at random moments, the policy's minimum isolation.
# Each skips without a kernel.
foreach(check IN ITEMS rules concurrency crash isolation)
  add_test(NAME gate_${check}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/gate/gate_${check}.sh --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(gate_${check} PROPERTIES TIMEOUT 900 LABELS gate
                       SKIP_REGULAR_EXPRESSION "^skipped: ")
endforeach()

# The demos from the outside (tests/demo/demo_cli.sh, docs/demo.md): decisions
# in order, one outbox message per key, the held-out check, the grader's replay
# and the episode mismatch. Each skips without a kernel.
foreach(demo IN ITEMS refund grader)
  add_test(NAME demo_${demo}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/demo/demo_cli.sh ${demo} --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(demo_${demo} PROPERTIES TIMEOUT 600 LABELS demo
                       SKIP_REGULAR_EXPRESSION "^skipped: ")
endforeach()

# `ampoule mcp` from the outside (tests/mcp/, docs/quickstart.md): the official
# MCP TypeScript client over stdio and Streamable HTTP with receipts checked by
# ampoule-verify, bad HTTP input, the official conformance suite (pinned), and
# the OpenAI Agents SDK and Claude Agent SDK adapters with the real gate. Each
# skips without Node.js, node_modules (scripts/npm-install.sh) or a kernel.
add_test(NAME mcp_interop
         COMMAND ${CMAKE_SOURCE_DIR}/tests/mcp/interop.sh --ampoule $<TARGET_FILE:ampoule>
                 --verify $<TARGET_FILE:ampoule-verify>)
add_test(NAME mcp_conformance
         COMMAND ${CMAKE_SOURCE_DIR}/tests/mcp/conformance.sh --ampoule $<TARGET_FILE:ampoule>)
add_test(NAME mcp_adapters
         COMMAND ${CMAKE_SOURCE_DIR}/tests/mcp/adapters.sh --ampoule $<TARGET_FILE:ampoule>)
set_tests_properties(mcp_interop mcp_conformance mcp_adapters PROPERTIES
                     TIMEOUT 600 LABELS mcp SKIP_REGULAR_EXPRESSION "^skipped: ")

# `ampoule mcp` over real stdin and stdout (tests/mcp/stdio_cli_test.py,
# docs/mcp.md): the lifecycle, tools/list, run_python and verify_receipt.
# Skips without a kernel.
add_python_test(mcp_stdio_cli mcp/stdio_cli_test.py --ampoule $<TARGET_FILE:ampoule>)
set_tests_properties(mcp_stdio_cli PROPERTIES TIMEOUT 600 LABELS mcp)

# `ampoule mcp --http` over real sockets (tests/mcp/http_cli_test.py,
# docs/mcp.md): the Streamable HTTP rules (sessions, status codes, Origin and
# Host checks, one server-sent event per tool call, bad clients, SIGTERM).
# Skips without a kernel.
add_python_test(mcp_http_cli mcp/http_cli_test.py --ampoule $<TARGET_FILE:ampoule>)
set_tests_properties(mcp_http_cli PROPERTIES TIMEOUT 600 LABELS mcp)

# The release bundle (scripts/package.sh, docs/building.md): packaged twice to
# the same bytes, unpacked into an empty folder, checked with its check.sh,
# the quickstart's command line run from inside it with a clean environment
# (VERIFIED, REPLAY OK), and a changed file named by check.sh. Skips without
# a kernel.
add_test(NAME package_cli
         COMMAND ${CMAKE_SOURCE_DIR}/tests/package/package_cli.sh --ampoule $<TARGET_FILE:ampoule>)
set_tests_properties(package_cli PROPERTIES TIMEOUT 600 LABELS package
                     SKIP_REGULAR_EXPRESSION "^skipped: ")
