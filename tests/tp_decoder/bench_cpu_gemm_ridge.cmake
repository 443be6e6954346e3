# jobs/bench_cpu_gemm.sh on the ridge model: one call per candidate, so the
# figures mean nothing; what is checked is that the run exits 0 (every
# candidate's product right at every m), prints one table row for each m from
# 1 to 16, and closes with the model's summary.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TPB_BUILD_DIR=${BUILD_DIR} ${SCRIPT} 1 ridge
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_cpu_gemm.sh 1 ridge: exit ${rc}\n${out}${err}")
endif()
foreach(m RANGE 1 16)
  string(REGEX MATCHALL "\nridge +8192x2048 +${m} [^\n]*" rows "${out}")
  list(LENGTH rows count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "bench_cpu_gemm.sh 1 ridge: ${count} rows for m = ${m}, expected 1:\n${out}")
  endif()
endforeach()
string(REGEX MATCHALL "\nridge [^\n]*" all_rows "${out}")
list(LENGTH all_rows total)
if(NOT total EQUAL 16 OR NOT out MATCHES "\n# ridge: fractions of the limit")
  message(FATAL_ERROR "bench_cpu_gemm.sh 1 ridge: ${total} rows (expected 16) or no summary:\n${out}")
endif()
