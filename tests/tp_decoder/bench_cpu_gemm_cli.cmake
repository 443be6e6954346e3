# bench_cpu_gemm's arguments: each bad one must exit 2 with exactly one
# "bench_cpu_gemm:" line naming it, before any shape is measured; --help
# prints the usage on stdout and exits 0.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_error_line.cmake)
function(expect_rejected expected_text)
  execute_process(COMMAND ${BENCH} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "bench_cpu_gemm ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "bench_cpu_gemm ${ARGN}: printed to stdout before refusing:\n${out}")
  endif()
  tpb_expect_one_error_line("bench_cpu_gemm ${ARGN}" "bench_cpu_gemm: " "${expected_text}" "${err}")
endfunction()

expect_rejected("'3x'" --reps 3x)
expect_rejected("'0'" --reps 0)
expect_rejected("'-4'" --reps -4)
expect_rejected("--reps" --reps)
expect_rejected("'nosuch'" --model nosuch)
expect_rejected("'--frob'" --frob 3)

execute_process(COMMAND ${BENCH} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: bench_cpu_gemm" OR NOT err STREQUAL "")
  message(FATAL_ERROR "bench_cpu_gemm --help: exit ${rc}, stdout:\n${out}\nstderr:\n${err}")
endif()
