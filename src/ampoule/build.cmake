# Ampoule (src/ampoule): verifiable runs. Included from the root
# CMakeLists.txt. One library per stage, each using only the stages before it:
# engine -> WASI -> receipts -> kernel -> jail -> run -> verify -> gate -> MCP.

# The engine (src/ampoule/wasm): opcode table, decoder, validator,
# translator, interpreter, store. No I/O.
amp_glob(WASM_CORE_SRCS src/ampoule/wasm/types*.cc src/ampoule/wasm/opcode*.cc src/ampoule/wasm/value*.cc)
amp_glob(WASM_DECODER_SRCS src/ampoule/wasm/decoder*.cc src/ampoule/wasm/leb128*.cc)
amp_glob(WASM_VALIDATOR_SRCS src/ampoule/wasm/validator*.cc)
amp_glob(WASM_EXEC_SRCS src/ampoule/wasm/translator*.cc src/ampoule/wasm/interpreter*.cc)
amp_glob(WASM_RUNTIME_SRCS src/ampoule/wasm/store*.cc src/ampoule/wasm/instance*.cc src/ampoule/wasm/compile*.cc)
add_library(amp_wasm STATIC ${WASM_CORE_SRCS} ${WASM_DECODER_SRCS} ${WASM_VALIDATOR_SRCS}
                            ${WASM_EXEC_SRCS} ${WASM_RUNTIME_SRCS})
# The deterministic WASI host (src/ampoule/wasi).
amp_glob(WASI_SRCS src/ampoule/wasi/*.cc)
add_library(amp_wasi STATIC ${WASI_SRCS})
target_link_libraries(amp_wasi PUBLIC amp_wasm core sodium)
# The core spec test runner (src/ampoule/spectest).
amp_glob(SPECTEST_SRCS src/ampoule/spectest/*.cc)
add_library(amp_spectest STATIC ${SPECTEST_SRCS})
target_link_libraries(amp_spectest PUBLIC amp_wasm core nlohmann_json::nlohmann_json)
# Receipts (src/ampoule/receipt): DSSE envelopes, in-toto statements, key
# files, the verifier (Ed25519, base64 and strict JSON are the core's).
amp_glob(RECEIPT_SRCS src/ampoule/receipt/*.cc)
add_library(amp_receipt STATIC ${RECEIPT_SRCS})
target_link_libraries(amp_receipt PUBLIC core nlohmann_json::nlohmann_json sodium)
# The kernel file (src/ampoule/kernel): format, packing, reading.
amp_glob(KERNEL_SRCS src/ampoule/kernel/*.cc)
add_library(amp_kernel STATIC ${KERNEL_SRCS})
target_link_libraries(amp_kernel PUBLIC core nlohmann_json::nlohmann_json sodium)
# The jail a run executes in (src/ampoule/sandbox): namespaces, seccomp, rlimits.
amp_glob(SANDBOX_SRCS src/ampoule/sandbox/*.cc)
add_library(amp_sandbox STATIC ${SANDBOX_SRCS})
target_link_libraries(amp_sandbox PUBLIC seccomp)
# Running a program on a kernel (src/ampoule/run): requests, the engine side, records.
amp_glob(RUN_SRCS src/ampoule/run/*.cc)
add_library(amp_run STATIC ${RUN_SRCS})
target_link_libraries(amp_run PUBLIC amp_wasi amp_kernel amp_sandbox amp_receipt)
# Checking receipts and replaying them (src/ampoule/verify).
amp_glob(VERIFY_SRCS src/ampoule/verify/*.cc)
add_library(amp_verify STATIC ${VERIFY_SRCS})
target_link_libraries(amp_verify PUBLIC amp_run amp_receipt)
# The trust gate (src/ampoule/gate): decisions on actions backed by receipts.
amp_glob(GATE_SRCS src/ampoule/gate/*.cc)
add_library(amp_gate STATIC ${GATE_SRCS})
# utf8proc: Unicode normalisation of idempotency keys and kinds (docs/decisions/0024-unicode-keys.md).
target_link_libraries(amp_gate PUBLIC amp_verify core utf8proc)
# The MCP server (src/ampoule/mcp, docs/mcp.md): the protocol, the tools, the
# stdio and Streamable HTTP transports. Tool calls run on threads.
amp_glob(MCP_SRCS src/ampoule/mcp/*.cc)
add_library(amp_mcp STATIC ${MCP_SRCS})
target_link_libraries(amp_mcp PUBLIC amp_gate amp_verify core core_http nlohmann_json::nlohmann_json Boost::headers
                                     Threads::Threads)

# The demos (src/ampoule/demo, docs/demo.md), with the example files they
# write built in, so an installed binary needs no source tree.
amp_embed_files(${CMAKE_BINARY_DIR}/generated/embedded_files_data.cc ${CMAKE_SOURCE_DIR}/examples
                ampoule/demo/embedded_files.h ampoule::demo
                refund/orders.csv refund/orders-heldout.csv refund/refund.py refund/README.md
                grader/grader.py grader/episode-7.json grader/episode-8.json grader/README.md)
amp_glob(DEMO_SRCS src/ampoule/demo/*.cc)
add_library(amp_demo STATIC ${DEMO_SRCS} ${CMAKE_BINARY_DIR}/generated/embedded_files_data.cc)
target_link_libraries(amp_demo PUBLIC amp_verify amp_kernel nlohmann_json::nlohmann_json)

# The commands (src/ampoule/cli, src/ampoule/bin).
amp_glob(CLI_SRCS src/ampoule/cli/*.cc)
list(FILTER CLI_SRCS EXCLUDE REGEX "/wasm_run_main\\.cc$")
add_executable(ampoule ${CLI_SRCS})
target_link_libraries(ampoule PRIVATE amp_wasi amp_spectest amp_receipt amp_kernel amp_run amp_verify
                                      amp_gate amp_demo amp_mcp)
add_executable(ampoule-verify src/ampoule/bin/ampoule_verify_main.cc)
target_link_libraries(ampoule-verify PRIVATE amp_verify)
# The engine a kernel carries: a static executable, so it runs in a jail
# whose mount view is empty. Sanitizer runtimes cannot link statically; such
# builds make a dynamic engine for in-process tests only.
add_executable(ampoule-engine src/ampoule/bin/ampoule_engine_main.cc)
target_link_libraries(ampoule-engine PRIVATE amp_run)
if(NOT AMPOULE_SANITIZE AND NOT AMPOULE_FUZZ)
  # Stripped (-s): every run copies the engine out of the kernel, and debug
  # information would make it 15 times larger. Debug the engine's code in the
  # in-process tests instead.
  target_link_options(ampoule-engine PRIVATE -static -s)
endif()
# `ampoule wasm run` alone, on the engine and the WASI host only: the
# determinism check (tests/determinism.sh) builds it at -O0 without compiling
# the rest of Ampoule. A development tool; not installed.
add_executable(ampoule-wasm-run src/ampoule/cli/wasm_run_main.cc src/ampoule/cli/wasm_run.cc
                                src/ampoule/cli/arg_parse.cc)
target_link_libraries(ampoule-wasm-run PRIVATE amp_wasi)
