# The socket audit (scripts/audit-sockets.sh) shown to fail on planted calls
# (tests/audit/planted_*.cc, compiled by the test, never linked) and to pass
# on the objects the build audits after linking `volent`, listed in
# BUILD/volent-audit-objects.txt (CMakeLists.txt) (tests/volent/audit.sh).
if(TARGET volent AND VOLENT_AUDIT_OBJECTS)
  set(volent_audit_test_nm)
  if(CMAKE_NM)
    set(volent_audit_test_nm --nm ${CMAKE_NM})
  endif()
  add_test(NAME volent_socket_audit
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/volent/audit.sh --cxx ${CMAKE_CXX_COMPILER}
                   ${volent_audit_test_nm} --build ${CMAKE_BINARY_DIR}
                   -- @${CMAKE_BINARY_DIR}/volent-audit-objects.txt)
  set_tests_properties(volent_socket_audit PROPERTIES
                       TIMEOUT 300 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
