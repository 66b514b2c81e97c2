# volent-init (src/volent/init): the sealed image's PID 1 (docs/image.md).
# Included from src/volent/build.cmake.
#
# A static executable on libc alone: the initramfs holds this one file and no
# dynamic loader, and nothing of the node's libraries is linked in. Its parts
# are a library (volent_init) so that the unit tests link them too.
# Sanitizer runtimes cannot link statically (as ampoule-engine): such builds
# make a dynamic volent-init, which the boot test (tests/image/) skips.
amp_glob(INIT_SRCS src/volent/init/*.cc)
list(FILTER INIT_SRCS EXCLUDE REGEX "/main\\.cc$")
add_library(volent_init STATIC ${INIT_SRCS})
add_executable(volent-init src/volent/init/main.cc)
target_link_libraries(volent-init PRIVATE volent_init)
if(NOT AMPOULE_SANITIZE AND NOT AMPOULE_FUZZ)
  # Stripped: every byte is copied into each image's initramfs.
  target_link_options(volent-init PRIVATE -static -s)
endif()
