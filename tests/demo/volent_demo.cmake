# The Volent story of the main demo (scripts/demo-volent.py, docs/demo.md),
# run on this build's volent: the mock model and a local order service, the
# control API, SSRF attempts denied and journaled, the node killed with
# SIGKILL mid-run and restarted, every side effect applied once, the journal
# verified. Passes only if every check held. Its working folder is kept in
# the build folder (demo-volent/) and emptied at the next run.
find_program(VOLENT_DEMO_PYTHON3 python3)
# The kernel is the one the build's tests run on (build/share/ampoule, packed
# by scripts/test.sh); without it the story cannot run its sealed tool call,
# and the test says so.
if(TARGET volent AND VOLENT_DEMO_PYTHON3)
  set(demo_kernel ${CMAKE_BINARY_DIR}/share/ampoule/ampoule.kernel)
  add_test(NAME demo_volent
           COMMAND sh -c "if [ ! -f \"$1\" ]; then echo \"skipped: no kernel at $1 (scripts/build-kernel.sh)\"; exit 0; fi; shift; exec \"$0\" \"$@\""
                   ${VOLENT_DEMO_PYTHON3} ${demo_kernel} ${CMAKE_SOURCE_DIR}/scripts/demo-volent.py
                   --volent $<TARGET_FILE:volent> --kernel ${demo_kernel} --dir ${CMAKE_BINARY_DIR}/demo-volent)
  set_tests_properties(demo_volent PROPERTIES TIMEOUT 300 LABELS demo SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
