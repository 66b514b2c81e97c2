# The sealed image from the outside (tests/image/, docs/image.md).
#
# image_boot: Debian's kernel under QEMU's microvm boots volent-init as PID 1,
#   which says its heartbeat and powers off (tests/image/boot_test.sh). The
#   first run downloads the kernel package (about 70 MB) into the cache of
#   scripts/image/kernel.sh. Prints `skipped: REASON` without QEMU, without
#   the kernel, or with a dynamic volent-init (sanitizer builds).
if(TARGET volent-init)
  add_test(NAME image_boot COMMAND bash ${CMAKE_SOURCE_DIR}/tests/image/boot_test.sh --init $<TARGET_FILE:volent-init>)
  set_tests_properties(image_boot PROPERTIES TIMEOUT 300 LABELS image SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# image_vm: the whole image (tests/image/image_test.py): built by
#   scripts/build-image.sh with a configuration pointing at a receiver and the
#   mock model on the host; checked from inside; tampered disks and a wrong
#   root hash halt; the node in the VM runs agents, is killed with SIGKILL,
#   boots again and resumes with every effect applied once.
if(TARGET volent-init AND TARGET volent)
  add_test(NAME image_vm COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/image/image_test.py --build ${CMAKE_BINARY_DIR})
  set_tests_properties(image_vm PROPERTIES TIMEOUT 900 LABELS image SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# image_uefi: the full-chain profile (tests/image/uefi_test.py): the signed UKI
#   and OVMF's variables with the image's dev-only keys; OVMF refuses the
#   unsigned, foreign-signed and altered UKIs and, with Microsoft's keys
#   alone, the good one; the image boots under Secure Boot with swtpm; the
#   node's report verifies against the PCRs the build predicted and fails
#   against another build's prediction, naming the PCR.
if(TARGET volent-init AND TARGET volent)
  add_test(NAME image_uefi COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/image/uefi_test.py --build ${CMAKE_BINARY_DIR})
  set_tests_properties(image_uefi PROPERTIES TIMEOUT 1200 LABELS image SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# image_door / volent_door: the operators' door (tests/image/door_test.py):
#   HEAD answers without a body, a valid admin token served while wrong ones
#   keep coming from its address, and a request answered with idle sockets
#   beyond the connection caps; against the image through its port forward
#   (every host client one address inside), or a local node (--local, which
#   also sends wrong tokens from 600 addresses and counts them in the journal).
if(TARGET volent-init AND TARGET volent)
  add_test(NAME image_door COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/image/door_test.py --build ${CMAKE_BINARY_DIR})
  set_tests_properties(image_door PROPERTIES TIMEOUT 900 LABELS image SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
if(TARGET volent)
  add_test(NAME volent_door COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/image/door_test.py --build ${CMAKE_BINARY_DIR} --local)
  set_tests_properties(volent_door PROPERTIES TIMEOUT 300 LABELS volent SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()

# image_env: image.env is read as data, never run (scripts/image/image_env.sh):
#   scripts/boot-image.sh refuses an image.env that tries to run a command, has
#   an unknown key or a malformed root hash, or no longer matches SHA256SUMS,
#   and never starts QEMU (a fake one on PATH); no boot, a second or two.
add_test(NAME image_env COMMAND bash ${CMAKE_SOURCE_DIR}/tests/image/image_env_test.sh)
set_tests_properties(image_env PROPERTIES TIMEOUT 120 LABELS image)
