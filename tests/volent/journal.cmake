# `volent journal digest|verify` from the outside (tests/volent/journal_cli.sh):
# journals written by Python from docs/journal.md, then altered, truncated and
# replaced by files that are not journals.
if(TARGET volent)
  add_test(NAME volent_journal_cli
           COMMAND ${CMAKE_SOURCE_DIR}/tests/volent/journal_cli.sh --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_journal_cli PROPERTIES
                       TIMEOUT 120 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
