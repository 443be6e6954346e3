# Runs `mpiexec -n 2 mpi_bench info --output` variants that must fail, and
# checks: non-zero exit, exactly one error line, and it names the bad value.
function(expect_rejected expected_text)
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 50)
  if(rc EQUAL 0)
    message(FATAL_ERROR "mpi_bench ${ARGN}: exit 0, expected a failure")
  endif()
  string(REGEX MATCHALL "tpbench: error:[^\n]*" lines "${err}")
  list(LENGTH lines n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "mpi_bench ${ARGN}: expected one error line, got ${n}:\n${err}")
  endif()
  string(FIND "${lines}" "${expected_text}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "mpi_bench ${ARGN}: error line does not name '${expected_text}': ${lines}")
  endif()
endfunction()

expect_rejected("no-such-option" info --no-such-option)
expect_rejected("/nonexistent-dir/x.h5" info -o /nonexistent-dir/x.h5)
