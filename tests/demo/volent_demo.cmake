# The Volent story of the main demo (scripts/demo-volent.py, docs/demo.md),
# run on this build's volent: the mock model and a local order service, the
# control API, SSRF attempts denied and journaled, the node killed with
# SIGKILL mid-run and restarted, every side effect applied once, the journal
# verified. Passes only if every check held. Its working folder is kept in
# the build folder (demo-volent/) and emptied at the next run.
find_program(VOLENT_DEMO_PYTHON3 python3)
if(TARGET volent AND VOLENT_DEMO_PYTHON3)
  add_test(NAME demo_volent
           COMMAND ${VOLENT_DEMO_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/demo-volent.py
                   --volent $<TARGET_FILE:volent> --dir ${CMAKE_BINARY_DIR}/demo-volent)
  set_tests_properties(demo_volent PROPERTIES TIMEOUT 300 LABELS demo)
endif()
