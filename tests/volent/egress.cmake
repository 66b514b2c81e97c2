# `volent egress test` from the outside (tests/volent/egress_cli.sh): one
# request through the real gate against a local server, allowed and denied.
if(TARGET volent)
  add_test(NAME volent_egress_cli
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/egress_cli.sh --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_egress_cli PROPERTIES
                       TIMEOUT 120 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
