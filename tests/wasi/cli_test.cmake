# `ampoule wasm run` from the outside: exit codes, --stats, error messages.
# Run by ctest as: cmake -DAMPOULE=... -DGUESTS=... -DINPUT=... -DWORK=... -P cli_test.cmake

file(MAKE_DIRECTORY ${WORK})
set(failures 0)

# expect(NAME CODE STDOUT_REGEX STDERR_REGEX ARGS...)
function(expect name code out_re err_re)
  execute_process(COMMAND ${AMPOULE} wasm run ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(bad "")
  if(NOT rc STREQUAL "${code}")
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

file(WRITE ${WORK}/stdin.txt "abc\ndef\n")

expect(returns-zero 0 "argc=3\nargv\\[0\\]=args.wasm\nargv\\[1\\]=a\nargv\\[2\\]=b c\n" "^$"
       ${GUESTS}/args.wasm -- a "b c")
expect(exit-status 42 "^$" "exiting with 42\n" ${GUESTS}/exitcode.wasm -- 42)
expect(exit-status-out-of-range 124 "^$" "exiting with 300" ${GUESTS}/exitcode.wasm -- 300)
expect(stats-on-exit 7 "^$"
       "ampoule stats: stop=exit exit_code=7 fuel_used=[0-9]+ memory_cap_hit=no"
       ${GUESTS}/exitcode.wasm --stats -- 7)
expect(trap 126 "about to trap\n" "guest trapped: unreachable.*stop=trap trap=unreachable"
       ${GUESTS}/trap.wasm --stats)
expect(out-of-fuel 127 "^$" "ran out of fuel.*stop=fuel fuel_used="
       ${GUESTS}/spin.wasm --fuel 100000 --stats)
expect(memory-cap 0 "allocated [0-9] MiB before malloc failed" "memory_cap_hit=yes"
       ${GUESTS}/memory.wasm --memory 8M --stats)
expect(stdin 0 "ABC\nDEF\nbytes=8 lines=2\n" "^$" ${GUESTS}/stdin.wasm --stdin ${WORK}/stdin.txt)
expect(env 0 "env GREETING=hi\nenv X=1\nGREETING=hi\n" "^$"
       ${GUESTS}/env.wasm --env GREETING=hi --env X=1)
expect(dir 0 "/input:\n  hello.txt\n  nested/\n/input/nested:\n  deep/\n  z.txt\n" "^$"
       ${GUESTS}/dirs.wasm --dir /input=${INPUT})
# The guest changes its in-memory copy of the folder, never the folder.
expect(writes-stay-in-the-run 0 "create: OK\n.*tree:\n  empty/\n" "^$"
       ${GUESTS}/fs_write.wasm --dir /input=${INPUT})
file(READ ${INPUT}/hello.txt hello_after)
if(NOT hello_after STREQUAL "hello, world\nsecond line\n" OR EXISTS ${INPUT}/new.txt)
  message(SEND_ERROR "writes-stay-in-the-run: the run changed ${INPUT}")
endif()
expect(seeded-random 0 "random: 20735239df301900" "^$" ${GUESTS}/random.wasm --seed 0)
expect(flood-is-capped 0 "^x+$"
       "output over the 16777216-byte cap was dropped.*stdout_bytes=18874372"
       ${GUESTS}/flood.wasm --stats -- 18432)
expect(help 0 "usage: ampoule wasm run.*126 +the guest trapped" "^$" --help)

expect(no-module 125 "^$" "no module given" )
expect(missing-module 125 "^$" "module: cannot open ${WORK}/nope.wasm" ${WORK}/nope.wasm)
expect(not-wasm 125 "^$" "malformed" ${WORK}/stdin.txt)
expect(unknown-option 125 "^$" "unknown option '--bogus'" ${GUESTS}/args.wasm --bogus)
expect(bad-fuel 125 "^$" "invalid --fuel 'lots'" ${GUESTS}/args.wasm --fuel lots)
expect(bad-env 125 "^$" "invalid --env 'NOVALUE'" ${GUESTS}/args.wasm --env NOVALUE)
expect(missing-dir 125 "^$" "is not a directory" ${GUESTS}/args.wasm --dir /input=${WORK}/nope)
expect(missing-stdin 125 "^$" "stdin file: cannot open" ${GUESTS}/args.wasm --stdin ${WORK}/nope)
