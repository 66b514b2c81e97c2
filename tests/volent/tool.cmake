# `volent tool sign|add|list|show|remove` from the outside (tests/volent/tool_cli.sh):
# signatures made and refused, a tool changed before add and inside the store.
if(TARGET volent AND TARGET ampoule)
  add_test(NAME volent_tool_cli
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/tool_cli.sh --volent $<TARGET_FILE:volent>
                   --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(volent_tool_cli PROPERTIES
                       TIMEOUT 120 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# Tool modules for the sealed tool calls: the shipped example
# tools (examples/tools/*.c) and the hostile ones of tests/volent/tools/,
# compiled to wasm32-wasi as the WASI guests are (tests/wasi/CMakeLists.txt
# makes the sysroot).
set(TOOL_MODULE_DIR ${CMAKE_BINARY_DIR}/tool-modules)
if(AMPOULE_WASI_CC AND EXISTS ${CMAKE_BINARY_DIR}/wasi-sysroot/include/wasm32-wasi)
  file(MAKE_DIRECTORY ${TOOL_MODULE_DIR})
  file(GLOB tool_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/volent/tools/*.c)
  set(tool_modules)
  file(GLOB example_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/tools/*.c)
  foreach(src ${example_sources} ${tool_sources})
    get_filename_component(name ${src} NAME_WE)
    add_custom_command(
      OUTPUT ${TOOL_MODULE_DIR}/${name}.wasm
      COMMAND ${AMPOULE_WASI_CC} --target=wasm32-wasi --sysroot=${CMAKE_BINARY_DIR}/wasi-sysroot
              -O2 -Wall -Wextra -Werror -ffile-prefix-map=${CMAKE_SOURCE_DIR}/= -o ${TOOL_MODULE_DIR}/${name}.wasm ${src}
      DEPENDS ${src}
      COMMENT "Compiling tool module ${name}.wasm"
      VERBATIM)
    list(APPEND tool_modules ${TOOL_MODULE_DIR}/${name}.wasm)
  endforeach()
  add_custom_target(tool_modules ALL DEPENDS ${tool_modules})
endif()

# wasm tool calls through a running node (tests/volent/sealed_tools_test.py):
# each limit ends as a failed call and the run goes on, the answer carries a
# receipt that verifies and replays off the node, a changed store is refused.
if(TARGET volent AND TARGET ampoule AND TARGET ampoule-verify)
  add_python_test(volent_sealed_tools volent/sealed_tools_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule> --verify $<TARGET_FILE:ampoule-verify>
                  --modules ${TOOL_MODULE_DIR})
  set_tests_properties(volent_sealed_tools PROPERTIES TIMEOUT 600 LABELS volent)
  # HTTP requests of sealed tools (tests/volent/tool_http_test.py): granted,
  # denied and journaled, invalid, past the limit; replayed off the node.
  add_python_test(volent_tool_http volent/tool_http_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule> --verify $<TARGET_FILE:ampoule-verify>
                  --modules ${TOOL_MODULE_DIR})
  set_tests_properties(volent_tool_http PROPERTIES TIMEOUT 600 LABELS volent)
  # A credential the egress gate adds for a sealed tool (tests/volent/tool_credential_test.py):
  # the header arrives with its value, the value is nowhere in the data folder, the
  # records or the answers, a tool setting it is denied, a redirect elsewhere goes
  # without it, a loose or injected secret file stops the node; replayed without it.
  add_python_test(volent_tool_credential volent/tool_credential_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule> --verify $<TARGET_FILE:ampoule-verify>
                  --modules ${TOOL_MODULE_DIR})
  set_tests_properties(volent_tool_credential PROPERTIES TIMEOUT 600 LABELS volent)
endif()

# A sealed tool's limits bound the node (tests/volent/tool_limits_test.py):
# hostile tools writing to /output at once leave the node's peak
# memory within the bound docs/tools.md states; files_mb is checked,
# honoured, recorded in the receipt and replayed.
if(TARGET volent AND TARGET ampoule AND TARGET ampoule-verify)
  add_python_test(volent_tool_limits volent/tool_limits_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule> --verify $<TARGET_FILE:ampoule-verify>
                  --modules ${TOOL_MODULE_DIR})
  set_tests_properties(volent_tool_limits PROPERTIES TIMEOUT 600 LABELS volent)
endif()

# What a sealed tool's data reaches (tests/volent/tool_data_test.py): the
# model, through a recording mock model, is sent a tool's result and nothing
# of its exchanges, receipt or stdin; every request is journaled before it is
# sent and its answer when it comes, a call out of time included, listed in
# the run's view, and a crash while a request hangs sends nothing twice.
if(TARGET volent AND TARGET ampoule)
  add_python_test(volent_tool_data volent/tool_data_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(volent_tool_data PROPERTIES TIMEOUT 600 LABELS volent)
endif()
