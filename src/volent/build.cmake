# Volent (src/volent): the agent node. Included from the root CMakeLists.txt.
# Nothing here is linked into ampoule, ampoule-verify or the engine.
#   manifest   agent manifests and the node configuration: YAML with positions
#              (yaml-cpp), checked against schemas/*.json (draft-07, valijson)
#   node       the node's state: applied agents, persisted in its data folder
#   journal    the hash-chained journal of side effects
#   egress     the egress gate: the only code that resolves names and connects
#   model      model providers (Anthropic, OpenAI and compatible)
#   mockmodel  the mock model server for tests and benchmarks
#   agent      the agent loop: runs, steps, tool calls, approvals
#   tools      signed tools and the node's content-addressed store of them
#   sealed     wasm tool calls run through Ampoule's run path, each with a receipt
#   attest     the attestation report; the TPM (tpm2-tss): PCRs, AK, quotes, their check
#   init       volent-init, the sealed image's PID 1 (static, libc only; docs/image.md)
#   access     who may do what: the control API's credentials and roles, approval
#              signatures, the node's TLS certificates (decision 0056)
#   control    the control API: routes, problem details, OpenAPI, HTTP server
#   boot       the node assembled: configuration in, control API served
#              (`volent node`, the tests and the sealed image start it)
#   cli        the `volent` command
amp_embed_files(${CMAKE_BINARY_DIR}/generated/schema_files_data.cc ${CMAKE_SOURCE_DIR}/schemas
                volent/manifest/schema_files.h volent::manifest
                agent.schema.json volent.schema.json)
amp_glob(MANIFEST_SRCS src/volent/manifest/*.cc)
add_library(volent_manifest STATIC ${MANIFEST_SRCS} ${CMAKE_BINARY_DIR}/generated/schema_files_data.cc)
target_link_libraries(volent_manifest PUBLIC core yaml-cpp nlohmann_json::nlohmann_json)
amp_glob(STORE_SRCS src/volent/store/*.cc)
add_library(volent_store STATIC ${STORE_SRCS})
target_link_libraries(volent_store PUBLIC volent_manifest core Threads::Threads)
amp_glob(JOURNAL_SRCS src/volent/journal/*.cc)
add_library(volent_journal STATIC ${JOURNAL_SRCS})
target_link_libraries(volent_journal PUBLIC core sodium nlohmann_json::nlohmann_json Threads::Threads)
amp_glob(EGRESS_SRCS src/volent/egress/*.cc)
add_library(volent_egress STATIC ${EGRESS_SRCS})
target_link_libraries(volent_egress PUBLIC volent_manifest Boost::headers OpenSSL::SSL OpenSSL::Crypto
                                           PkgConfig::CARES Threads::Threads)
foreach(part IN ITEMS model mockmodel)
  amp_glob(${part}_SRCS src/volent/${part}/*.cc)
  add_library(volent_${part} STATIC ${${part}_SRCS})
  target_link_libraries(volent_${part} PUBLIC volent_egress volent_manifest nlohmann_json::nlohmann_json
                                              Boost::headers Threads::Threads)
endforeach()
# The mock model's server is the core's HTTP skeleton.
target_link_libraries(volent_mockmodel PUBLIC core_http)
# The model codecs parse answers with core/json.h.
target_link_libraries(volent_model PUBLIC core)
amp_glob(AGENT_SRCS src/volent/agent/*.cc)
add_library(volent_agent STATIC ${AGENT_SRCS})
target_link_libraries(volent_agent PUBLIC volent_journal volent_egress volent_store volent_manifest volent_model
                                          nlohmann_json::nlohmann_json Threads::Threads)
# Signed tools and the node's store of them. Volent uses Ampoule's receipt
# library for the signatures (decision 0000: never the other way round).
amp_glob(TOOLS_SRCS src/volent/tools/*.cc)
add_library(volent_tools STATIC ${TOOLS_SRCS})
target_link_libraries(volent_tools PUBLIC volent_manifest amp_receipt core nlohmann_json::nlohmann_json)
# wasm tool calls run sealed through Ampoule's run path (amp_run), each with
# a receipt.
amp_glob(SEALED_SRCS src/volent/sealed/*.cc)
add_library(volent_sealed STATIC ${SEALED_SRCS})
target_link_libraries(volent_sealed PUBLIC volent_agent volent_tools amp_run amp_kernel nlohmann_json::nlohmann_json
                                           Threads::Threads)
# The TPM layer over tpm2-tss (ESYS, MU, the TCTI loader) and the quote
# check, which needs only MU and OpenSSL (docs/decisions/0038-tpm-through-tpm2-tss.md);
# the report is signed as receipts are (amp_receipt).
amp_glob(ATTEST_SRCS src/volent/attest/*.cc)
add_library(volent_attest STATIC ${ATTEST_SRCS})
target_link_libraries(volent_attest PUBLIC core amp_receipt PkgConfig::TSS2 OpenSSL::Crypto
                                           nlohmann_json::nlohmann_json)
# The one device-mapper status reader is PID 1's (init/device_mapper.h).
target_link_libraries(volent_attest PRIVATE volent_init)
# A release-shaped build (the sealed image's) refuses to sign an attestation
# report while the node's key is dev-only (docs/attestation.md).
option(VOLENT_RELEASE_SHAPED "Refuse to sign attestation reports with a dev-only key" OFF)
if(VOLENT_RELEASE_SHAPED)
  target_compile_definitions(volent_attest PUBLIC VOLENT_RELEASE_SHAPED=1)
endif()
# Credentials, roles, approval signatures and TLS certificates: no HTTP here;
# control links access, never the other way (decision 0056).
amp_glob(ACCESS_SRCS src/volent/access/*.cc)
add_library(volent_access STATIC ${ACCESS_SRCS})
target_link_libraries(volent_access PUBLIC core nlohmann_json::nlohmann_json OpenSSL::Crypto)
amp_glob(CONTROL_SRCS src/volent/control/*.cc)
add_library(volent_control STATIC ${CONTROL_SRCS})
target_link_libraries(volent_control PUBLIC volent_access volent_store volent_manifest volent_journal volent_tools core core_http Boost::headers
                                            OpenSSL::SSL OpenSSL::Crypto
                                            Threads::Threads)
amp_glob(BOOT_SRCS src/volent/boot/*.cc)
add_library(volent_boot STATIC ${BOOT_SRCS})
target_link_libraries(volent_boot PUBLIC volent_control volent_agent volent_sealed volent_tools volent_attest volent_model
                                         volent_egress volent_store volent_manifest volent_journal core core_http)
# The sealed image's PID 1 (volent-init): static, libc only, none of the above.
include(src/volent/init/build.cmake)

amp_glob(VOLENT_CLI_SRCS src/volent/cli/*.cc)
add_executable(volent ${VOLENT_CLI_SRCS})
target_link_libraries(volent PRIVATE volent_boot volent_control volent_agent volent_model volent_mockmodel volent_egress
                                     volent_store volent_manifest volent_journal volent_tools)
# The socket audit (docs/egress.md, docs/decisions/0020-socket-audit.md): each time
# `volent` is linked, scripts/audit-sockets.sh reads the symbols of its own
# objects and of every volent_* library (and the core) it links, directly or
# through another volent_* library, and fails the build if code outside src/volent/egress connects or
# resolves names, or opens a socket without being a listed inbound server.
# Ampoule's libraries are not audited here (their own sandbox rules apply).
# The same list (VOLENT_AUDIT_OBJECTS, BUILD/volent-audit-objects.txt) is what
# tests/volent/audit.sh checks.
set(VOLENT_AUDIT_OBJECTS $<TARGET_OBJECTS:volent>)
get_target_property(volent_audit_queue volent LINK_LIBRARIES)
set(volent_audit_seen)
while(volent_audit_queue)
  list(POP_FRONT volent_audit_queue volent_audit_lib)
  if(NOT volent_audit_lib MATCHES "^(volent_|core$|core_http$)" OR NOT TARGET ${volent_audit_lib}
     OR volent_audit_lib IN_LIST volent_audit_seen)
    continue()
  endif()
  list(APPEND volent_audit_seen ${volent_audit_lib})
  get_target_property(volent_audit_type ${volent_audit_lib} TYPE)
  if(volent_audit_type STREQUAL "INTERFACE_LIBRARY")
    continue()  # a part without sources yet: no objects
  endif()
  list(APPEND VOLENT_AUDIT_OBJECTS $<TARGET_OBJECTS:${volent_audit_lib}>)
  get_target_property(volent_audit_deps ${volent_audit_lib} LINK_LIBRARIES)
  if(volent_audit_deps)
    list(APPEND volent_audit_queue ${volent_audit_deps})
  endif()
endwhile()
# The list goes in a file: a failing build then shows a short command.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/volent-audit-objects.txt
     CONTENT "$<JOIN:${VOLENT_AUDIT_OBJECTS},\n>\n")
set(volent_audit_nm)
if(CMAKE_NM)
  set(volent_audit_nm --nm ${CMAKE_NM})  # llvm-nm with clang, nm with GCC
endif()
add_custom_command(TARGET volent POST_BUILD
  COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/audit-sockets.sh --quiet ${volent_audit_nm}
          @${CMAKE_BINARY_DIR}/volent-audit-objects.txt
  COMMENT "Auditing the volent objects for outbound network calls outside src/volent/egress"
  VERBATIM)
