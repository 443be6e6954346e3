# `--collective oneshot` on device memory through the tools, on 2 ranks that
# may share one GPU (CUDA IPC between two processes on one device): the sweep
# runs the CUDA one-shot (its header says so) and finds no wrong element in
# any datatype or timing mode; the cuda-backend step with --check matches
# TP-1 at TP-2. Skipped (the SKIPPED line) where no GPU is visible.
include(${CMAKE_CURRENT_LIST_DIR}/gpu_visible.cmake)
if(NOT GPU_VISIBLE)
  message("SKIPPED: no visible GPU")
  return()
endif()

# Runs mpi_bench on 2 ranks; fails unless it exits 0 and prints every text in EXPECT.
function(run_expecting label)
  cmake_parse_arguments(RUN "" "" "EXPECT;ARGS" ${ARGN})
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} ${RUN_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: mpi_bench ${RUN_ARGS}: exit ${rc}\n${out}\n${err}")
  endif()
  foreach(expected IN LISTS RUN_EXPECT)
    string(FIND "${out}" "${expected}" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "${label}: output lacks '${expected}':\n${out}")
    endif()
  endforeach()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

foreach(datatype float bf16 half)
  foreach(timing per-call batch)
    run_expecting("sweep -d ${datatype} --timing ${timing}"
                  EXPECT "collective oneshot on device memory" "# wrong elements: 0 OK"
                  ARGS sweep --collective oneshot -b 8 -e 1M -f 8 -n 3 -w 1 -c 2 --op allreduce,allgather
                       -d ${datatype} --timing ${timing} --batch-calls 5)
  endforeach()
endforeach()

# The step's two all-reduces per layer and its logits all-gather through the
# CUDA one-shot: every TP-2 row (2 batches x 2 contexts) checked against TP-1.
run_expecting("step --backend cuda --collective oneshot" EXPECT "backend cuda, collective oneshot"
              ARGS step --backend cuda --collective oneshot --model ${CONFIGS}/tiny-llama.json --tp 1,2 --batch 1,2
                   --context 0,20 --check -w 1 -n 2)
string(REGEX MATCHALL "\n +2 +[0-9]+ +[0-9]+ [^\n]* ok [^\n]*" checked_rows "${run_output}")
list(LENGTH checked_rows checked)
if(NOT checked EQUAL 4)
  message(FATAL_ERROR "step --backend cuda --collective oneshot: ${checked} checked TP-2 rows, not 4\n${run_output}")
endif()
