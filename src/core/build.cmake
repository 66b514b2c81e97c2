# The core (src/core): what both products stand on. Included from the root
# CMakeLists.txt. Nothing here knows about runs, receipts or agents.
#   result.h   errors as values (Status, Result<T>)
#   http/      the HTTP servers' shared pieces: the framing check against
#              request smuggling (pure code on bytes), header reading, the
#              connection skeleton (server.cc: the one object here with
#              socket code, on the socket audit's inbound list), descriptor
#              limits
amp_glob(CORE_SRCS src/core/*.cc src/core/http/*.cc)
add_library(core STATIC ${CORE_SRCS})
target_link_libraries(core PUBLIC Boost::headers Threads::Threads)
