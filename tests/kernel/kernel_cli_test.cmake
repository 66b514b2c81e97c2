# `ampoule kernel pack|info|path` from the outside: a kernel packed from a
# small runtimes folder made here, its info, the default path rule, damaged
# kernels and usage errors, with their exit codes.
# Run by ctest as: cmake -DAMPOULE=... -DWORK=... -P kernel_cli_test.cmake

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/rt/lib)
set(failures 0)

# expect(NAME CODE STDOUT_REGEX STDERR_REGEX ARGS...)
function(expect name code out_re err_re)
  execute_process(COMMAND ${AMPOULE} kernel ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(bad "")
  if(NOT rc MATCHES "^(${code})$")
    string(APPEND bad " exit ${rc} (wanted ${code})")
  endif()
  if(NOT out MATCHES "${out_re}")
    string(APPEND bad " stdout did not match '${out_re}'")
  endif()
  if(NOT err MATCHES "${err_re}")
    string(APPEND bad " stderr did not match '${err_re}'")
  endif()
  if(bad)
    message(SEND_ERROR "${name}:${bad}\n--- stdout:\n${out}\n--- stderr:\n${err}")
  else()
    message(STATUS "ok: ${name}")
  endif()
endfunction()

# A runtimes folder as scripts/build-runtimes.sh --out writes it.
file(WRITE ${WORK}/engine "pretend engine")
file(WRITE ${WORK}/rt/python.wasm "pretend python")
file(WRITE ${WORK}/rt/lib/python311.zip "pretend zip")
file(WRITE ${WORK}/rt/js.wasm "pretend js")
file(WRITE ${WORK}/rt/share/zoneinfo.tar "pretend tar")
set(outputs "")
foreach(f python.wasm lib/python311.zip js.wasm share/zoneinfo.tar)
  file(SHA256 ${WORK}/rt/${f} sum)
  string(APPEND outputs "\"${f}\": {\"sha256\": \"${sum}\", \"bytes\": 1},")
endforeach()
string(REGEX REPLACE ",$" "" outputs "${outputs}")
file(WRITE ${WORK}/rt/manifest.json
     "{\"key\": \"0011223344556677\", \"inputs\": {\"source.python3.11\": \"3.11.2-6+deb12u8\", "
     "\"source.quickjs\": \"2025.04.26-1\", \"deb.clang-14\": \"1:14.0.6-12\"}, \"build\": {}, "
     "\"outputs\": {${outputs}}}")

set(K ${WORK}/a.kernel)
expect(pack 0 "wrote .*a.kernel \\([0-9]+ bytes, 6 entries\\)\nsha256 [0-9a-f]+\n" "^$"
       pack -o ${K} --engine ${WORK}/engine --runtimes ${WORK}/rt --engine-info compiler=test)
file(SHA256 ${K} digest)
expect(pack-again-same-bytes 0 "sha256 ${digest}" "^$"
       pack -o ${WORK}/b.kernel --engine ${WORK}/engine --runtimes ${WORK}/rt --engine-info compiler=test)
expect(info 0
       "sha256 +${digest}\n.*format +1\n.*cost table +1\n.*compiler +test\n.*build key 0011223344556677\n.*sources +python3.11 3.11.2-6\\+deb12u8, quickjs 2025.04.26-1\n.*toolchain +clang-14 1:14.0.6-12\n.*snapshots +no: not requested.*\nentry [0-9a-f]+ 14 engine\nentry [0-9a-f]+ 10 js/js.wasm\n.*entry [0-9a-f]+ 14 python/python.wasm\nentry [0-9a-f]+ 11 python/python311.zip\nentry [0-9a-f]+ 11 tzdata/zoneinfo.tar\nintegrity +ok"
       "^$" info ${K})

# The default path: $AMPOULE_KERNEL, else beside the executable.
set(ENV{AMPOULE_KERNEL} ${K})
expect(path-from-env 0 "^${K}\n$" "^$" path)
expect(info-default-kernel 0 "sha256 +${digest}" "^$" info)
set(ENV{AMPOULE_KERNEL} ${WORK}/none.kernel)
expect(path-missing 1 "^${WORK}/none.kernel\n$" "no kernel there yet" path)
unset(ENV{AMPOULE_KERNEL})
get_filename_component(bin ${AMPOULE} DIRECTORY)
get_filename_component(prefix ${bin} DIRECTORY)
expect(path-beside-executable "0|1" "^${prefix}/share/ampoule/ampoule.kernel\n$" "" path)

# Damaged kernels: the last byte changed (it belongs to the last entry in the
# file, tzdata/zoneinfo.tar, since entries are sorted), and half the file.
file(SIZE ${K} size)
math(EXPR last "${size} - 1")
math(EXPR half "${size} / 2")
file(COPY_FILE ${K} ${WORK}/damaged.kernel)
file(COPY_FILE ${K} ${WORK}/truncated.kernel)
execute_process(COMMAND sh -c "printf '\\001' | dd of='${WORK}/damaged.kernel' bs=1 seek=${last} conv=notrunc status=none && truncate -s ${half} '${WORK}/truncated.kernel'"
                RESULT_VARIABLE damage_rc)
if(NOT damage_rc EQUAL 0)
  message(SEND_ERROR "could not make the damaged kernels (dd, truncate)")
endif()
expect(damaged-entry 1 "^$" "'tzdata/zoneinfo.tar' does not match its SHA-256" info ${WORK}/damaged.kernel)
expect(truncated 1 "^$" "malformed kernel file: header says the file has [0-9]+ bytes but it has [0-9]+ \\(truncated\\)"
       info ${WORK}/truncated.kernel)
file(WRITE ${WORK}/text.txt "This is a text file, longer than the 64-byte header of a kernel file.")
expect(not-a-kernel 1 "^$" "not an ampoule kernel file" info ${WORK}/text.txt)
expect(no-such-kernel 1 "^$" "cannot open kernel '${WORK}/nope'" info ${WORK}/nope)

# A runtimes folder whose file differs from its manifest is refused.
file(WRITE ${WORK}/rt/js.wasm "changed")
expect(pack-mixed-runtimes 1 "^$" "mixes two builds" pack -o ${WORK}/c.kernel --engine ${WORK}/engine --runtimes ${WORK}/rt)

expect(no-subcommand 2 "^$" "which kernel command" )
expect(unknown-subcommand 2 "^$" "unknown kernel command 'bogus'" bogus)
expect(pack-missing-args 2 "^$" "pack needs -o, --engine and --runtimes" pack -o ${WORK}/x.kernel)
expect(bad-engine-info 2 "^$" "invalid --engine-info 'x'" pack --engine-info x)
expect(help 0 "usage: ampoule kernel info" "^$" --help)
