# `volent mock-model` from the outside (tests/volent/mock_model.sh,
# docs/mock-model.md): both APIs through whole tool-calling conversations,
# auth, bad requests, scripts, 300 and 1,600 requests at once, stats and
# options, with curl and jq (python3 for the 1,600). Prints `skipped: REASON`
# when curl, jq or the command is missing.
if(TARGET volent)
  add_test(NAME volent_mock_model
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/mock_model.sh --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_mock_model PROPERTIES
                       TIMEOUT 180 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
