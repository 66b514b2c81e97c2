# The chaos test (docs/chaos.md): `volent node` killed with SIGKILL at five
# points of its agent loop (before intent, after intent, after the effect,
# mid-commit, during replay), restarted each time; every side effect must be
# completed once, applied once at an Idempotency-Key receiver, never lost.
#
# volent_chaos_receiver: the receiver's own rules (dedup by key, counters),
#   over real sockets, without the node: seconds.
# volent_chaos: tests/volent/chaos_test.py on this build's binary, 100 agents x 4
#   steps per kill point; bounded by its own budget (540 s) under TIMEOUT.
# Each prints `skipped: REASON` when something it needs is missing.
add_python_test(volent_chaos_receiver volent/chaos_receiver.py --self-test)
set_tests_properties(volent_chaos_receiver PROPERTIES TIMEOUT 60 LABELS "volent;chaos")
if(TARGET volent)
  # With the example tool as a sealed wasm tool of every agent (tests/volent/tool.cmake builds it).
  add_python_test(volent_chaos volent/chaos_test.py --volent $<TARGET_FILE:volent>
                  --sealed-tool ${CMAKE_BINARY_DIR}/tool-modules/refund_policy.wasm)
  set_tests_properties(volent_chaos PROPERTIES TIMEOUT 600 LABELS "volent;chaos")
endif()
