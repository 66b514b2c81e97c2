# Egress denials from the outside (tests/volent/denials_api_test.py): an agent's
# tool call the gate refuses is journaled and listed by GET /v1/egress/denials.
if(TARGET volent)
  add_python_test(volent_denials_api volent/denials_api_test.py --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_denials_api PROPERTIES TIMEOUT 180 LABELS volent)
endif()
