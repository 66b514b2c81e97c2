# Runs host-independent guests under both `ampoule wasm run` and Node's
# node:wasi and requires the same stdout and exit status. (Programs whose
# output depends on the host - clocks, random, directory order, sockets -
# are checked by wasi_run_test and cli_test only.)

file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/stdin.txt "first line\nsecond line\nno newline at end")

function(compare name)
  execute_process(COMMAND ${AMPOULE} wasm run ${GUESTS}/${name}.wasm ${ARGN}
                  RESULT_VARIABLE rc_a OUTPUT_VARIABLE out_a ERROR_VARIABLE err_a)
  execute_process(COMMAND ${NODE} --no-warnings ${RUNNER} ${GUESTS}/${name}.wasm ${ARGN}
                  RESULT_VARIABLE rc_n OUTPUT_VARIABLE out_n ERROR_VARIABLE err_n)
  if(NOT rc_a STREQUAL rc_n OR NOT out_a STREQUAL out_n)
    message(SEND_ERROR "${name} ${ARGN}: ampoule (exit ${rc_a}) and node (exit ${rc_n}) differ\n"
                       "--- ampoule:\n${out_a}${err_a}\n--- node:\n${out_n}${err_n}")
  else()
    message(STATUS "same: ${name} ${ARGN}")
  endif()
endfunction()

compare(args -- one "two words" "" "ünïcode")
compare(env --env GREETING=hello --env EMPTY= --env "SPACE=a b")
compare(files --dir /input=${INPUT})
# A program that writes: ampoule runs first and must leave the folder as it
# was (it changes an in-memory copy); Node then changes the real folder.
file(REMOVE_RECURSE ${WORK}/writable)
file(COPY ${INPUT}/ DESTINATION ${WORK}/writable)
compare(fs_write --dir /input=${WORK}/writable)
compare(stdin --stdin ${WORK}/stdin.txt)
compare(exitcode -- 0)
compare(exitcode -- 3)
compare(exitcode -- 99)
