# Runs `mpiexec -n 2 mpi_bench info --output` variants that must fail, and
# checks: non-zero exit, exactly one error line, and it names the bad value.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_error_line.cmake)
function(expect_rejected expected_text)
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 50)
  if(rc EQUAL 0)
    message(FATAL_ERROR "mpi_bench ${ARGN}: exit 0, expected a failure")
  endif()
  tpb_expect_one_error_line("mpi_bench ${ARGN}" "tpbench: error:" "${expected_text}" "${err}")
endfunction()

expect_rejected("no-such-option" info --no-such-option)
expect_rejected("/nonexistent-dir/x.h5" info -o /nonexistent-dir/x.h5)
