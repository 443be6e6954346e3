# jobs/bench_cpu_gemm.sh on the ridge model: one call per candidate, so the
# figures mean nothing; what is checked is that the run exits 0 (every
# candidate's product right at every m), prints one table row for each m from
# 1 to 16 in order, and closes with the model's summary.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TPB_BUILD_DIR=${BUILD_DIR} ${SCRIPT} 1 ridge
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_cpu_gemm.sh 1 ridge: exit ${rc}\n${out}${err}")
endif()
string(REGEX MATCHALL "\nridge +8192x2048 +[0-9]+ " rows "${out}")
set(batches "")
foreach(row IN LISTS rows)
  string(REGEX REPLACE "\nridge +8192x2048 +([0-9]+) " "\\1" m "${row}")
  list(APPEND batches ${m})
endforeach()
if(NOT batches STREQUAL "1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16" OR NOT out MATCHES "\n# ridge: fractions of the limit")
  message(FATAL_ERROR "bench_cpu_gemm.sh 1 ridge: rows for m = ${batches}, expected 1 to 16 once each, "
                      "then the summary:\n${out}")
endif()
