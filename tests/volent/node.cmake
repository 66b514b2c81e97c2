# `volent node` from the outside (tests/volent/, docs/control-api.md).
#
# volent_node_api: every route of the control API over real sockets, bad
#   clients, restarts and SIGKILL in the middle of applies
#   (tests/volent/node_api_test.py).
# volent_openapi: the served OpenAPI document checked by an independent
#   OpenAPI 3.1 validator (tests/volent/openapi_test.py, tests/volent/openapi/,
#   scripts/npm-install.sh).
# Each prints `skipped: REASON` when something it needs is missing.
if(TARGET volent)
  # The example tools come from tests/volent/tool.cmake (build/tool-modules).
  add_python_test(volent_node_api volent/node_api_test.py --volent $<TARGET_FILE:volent>
                  --modules ${CMAKE_BINARY_DIR}/tool-modules)
  add_python_test(volent_openapi volent/openapi_test.py --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_node_api volent_openapi PROPERTIES TIMEOUT 300 LABELS volent)
endif()
# volent_auth: who may operate the node (tests/volent/auth_test.py): every
# operation of the served OpenAPI document against no credential, bad ones
# and each role; a signed approval checked off the node; brute force
# limited and journaled; development mode only on loopback.
if(TARGET volent AND TARGET ampoule)
  add_python_test(volent_auth volent/auth_test.py --volent $<TARGET_FILE:volent> --ampoule $<TARGET_FILE:ampoule>)
  set_tests_properties(volent_auth PROPERTIES TIMEOUT 300 LABELS volent)
endif()
# volent_mtls: mutual TLS on the control API (tests/volent/mtls_test.py): the
# node's own CA made at first start, a client certificate per role from
# `volent credential certificate` against every operation of the served
# OpenAPI document, a certificate from another CA refused in the handshake,
# plain HTTP to the TLS port unanswered, and an approval decided with a
# certificate named in the journal.
if(TARGET volent)
  add_python_test(volent_mtls volent/mtls_test.py --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_mtls PROPERTIES TIMEOUT 300 LABELS volent)
endif()
# volent_doc_examples: every shell example of docs/operator-guide.md run as
# written, in order, against a node (tests/volent/doc_examples_test.py).
if(TARGET volent AND TARGET ampoule)
  add_python_test(volent_doc_examples volent/doc_examples_test.py --volent $<TARGET_FILE:volent>
                  --ampoule $<TARGET_FILE:ampoule> --modules ${CMAKE_BINARY_DIR}/tool-modules)
  set_tests_properties(volent_doc_examples PROPERTIES TIMEOUT 300 LABELS volent)
endif()
