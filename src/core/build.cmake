# The core (src/core): what both products stand on. Included from the root
# CMakeLists.txt. Nothing here knows about runs, receipts or agents.
#   result.h   errors as values (Status, Result<T>, the error kind)
#   hex.h, sha256.h   lowercase hex and SHA-256 (libsodium)
#   ed25519.h, base64.h, json_strict.h, sodium_init.h  strict Ed25519 keys and
#              signatures (core::ed25519), base64 and JSON for signed documents
#   file_read.h  the one safe file reader (O_NONBLOCK, regular files, caps, trust files and folders)
#   folder_lock.h  an exclusive flock on a folder (the data folder: one writer at a time)
#   file_write.h  the durable write: a file replaced whole or created once
#              (temporary file, fsync, rename or link, fsync of the folder), a
#              folder moved into place
#   fault_injection.h  test-only countdowns that fail the Nth write, fsync,
#              rename... (header-only, as write_all.h and errno_text.h)
#   write_all.h  the write-all loop (EINTR, short writes)
#   errno_text.h  errno as text, and an Error "WHAT: reason"
#   unique_fd.h  an owned file descriptor
#   sqlite.h   SQLite opened for durability, statements, transactions
#   json.h     bounded parsing of JSON from outside, writing that never throws
#   crash_point.h  test-only kill points armed by an environment variable
#   utf8.h     the one UTF-8 validator (Wasm names, tool output as JSON text)
#   rfc3339.h  instants as RFC 3339 text in UTC (seconds or milliseconds)
#   host_port.h  HOST:PORT and [IPv6]:PORT, one parser for every address option
#   http/      (library core_http) the HTTP servers' shared pieces: the framing
#              check against request smuggling (pure code on bytes), header
#              reading, the connection skeleton (server.cc: the one object
#              here with socket code, on the socket audit's inbound list),
#              descriptor limits. A library of its own so that what needs no
#              server (the engine, the WASI host) compiles no Boost.Beast.
amp_glob(CORE_SRCS src/core/*.cc)
add_library(core STATIC ${CORE_SRCS})
target_link_libraries(core PUBLIC Threads::Threads)
# SHA-256 is libsodium's; the static engine links it too.
target_link_libraries(core PUBLIC sodium)
# sqlite.h: the SQLite files of the gate, the journal and the agent store.
target_link_libraries(core PUBLIC sqlite3)
# json.h: nlohmann::json.
target_link_libraries(core PUBLIC nlohmann_json::nlohmann_json)

amp_glob(CORE_HTTP_SRCS src/core/http/*.cc)
add_library(core_http STATIC ${CORE_HTTP_SRCS})
# OpenSSL: the TLS connections (ServerOptions::tls).
target_link_libraries(core_http PUBLIC core Boost::headers Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
