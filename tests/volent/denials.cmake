# Egress denials from the outside (tests/volent/denials_api.sh): an agent's
# tool call the gate refuses is journaled and listed by GET /v1/egress/denials.
if(TARGET volent AND EXISTS ${CMAKE_SOURCE_DIR}/tests/volent/denials_api.sh)
  add_test(NAME volent_denials_api
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/denials_api.sh --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_denials_api PROPERTIES
                       TIMEOUT 180 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
