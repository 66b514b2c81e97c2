# The attestation report from the outside (tests/volent/attest_test.py): nodes
# on their own software TPMs (swtpm), reports made through the API and the
# CLI, checked by `volent attest --verify` and tpm2_checkquote; each failed
# claim named (stale nonce, dev key, allowlist, PCR, another TPM, forgery);
# an honest report without a TPM. Prints `skipped: REASON` without swtpm.
if(TARGET volent)
  add_python_test(volent_attest volent/attest_test.py --volent $<TARGET_FILE:volent>)
  set_tests_properties(volent_attest PROPERTIES TIMEOUT 300 LABELS volent)
endif()
