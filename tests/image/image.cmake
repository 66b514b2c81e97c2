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
