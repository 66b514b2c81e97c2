# `volent check` from the outside (tests/volent/check_cli.sh): exit codes,
# output lines and the examples of examples/node.
add_test(NAME volent_check_cli
         COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/check_cli.sh --volent $<TARGET_FILE:volent>)
set_tests_properties(volent_check_cli PROPERTIES TIMEOUT 120 SKIP_REGULAR_EXPRESSION "^skipped: ")
