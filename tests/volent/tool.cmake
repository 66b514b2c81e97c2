# `volent tool sign|add|list|show|remove` from the outside (tests/volent/tool_cli.sh):
# signatures made and refused, a tool changed before add and inside the store.
if(TARGET volent AND TARGET ampoule)
  add_test(NAME volent_tool_cli
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/tool_cli.sh --volent $<TARGET_FILE:volent>
                   --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(volent_tool_cli PROPERTIES
                       TIMEOUT 120 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
