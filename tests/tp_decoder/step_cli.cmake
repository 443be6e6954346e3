# Runs `mpi_bench step` as a user would: --check passes at TP 1,2,4 on four
# ranks (GQA, MQA with kv_heads < k, qwen2 with biases) and writes the HDF5
# points; a degree that does not divide the heads is refused naming them.
function(run_ok)
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 4 ${MPI_BENCH} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mpi_bench ${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  string(REGEX MATCHALL "\n +4 +[0-9]+ +[0-9]+ [^\n]* ok [^\n]*" checked "${out}")
  list(LENGTH checked n)
  if(n LESS 1)
    message(FATAL_ERROR "mpi_bench ${ARGN}: no checked TP-4 row\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

foreach(model tiny-llama tiny-mqa tiny-qwen2)
  run_ok(step --model ${CONFIGS}/${model}.json --tp 1,2,4 --batch 1,2 --context 0,20 --check -w 1 -n 2
         -o ${WORK}/step_${model}.h5 --overwrite)
  if(NOT EXISTS ${WORK}/step_${model}.h5)
    message(FATAL_ERROR "no results file for ${model}")
  endif()
endforeach()

execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 4 ${MPI_BENCH} step --model ${CONFIGS}/llama-3.1-8b.json --tp 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(rc EQUAL 0)
  message(FATAL_ERROR "--tp 3 on a 32-head model: exit 0")
endif()
string(REGEX MATCHALL "tpbench: error:[^\n]*" lines "${err}")
list(LENGTH lines n)
if(NOT n EQUAL 1 OR NOT lines MATCHES "num_attention_heads \\(32\\) is not divisible by 3")
  message(FATAL_ERROR "--tp 3: expected one error line naming num_attention_heads (32):\n${err}")
endif()
