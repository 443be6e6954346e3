# `mpi_bench sweep` in both timing modes on 2 ranks, one-shot and MPI: every
# group records its collective, the memory it worked on and its timing mode, the overhead is measured, and
# the check (batch: on inputs that change between calls) finds nothing wrong,
# and `mpi_bench verify` accepts the file (its schema names every dataset).
# The one-shot works on device memory (CUDA IPC) where this build has CUDA
# and a GPU is visible, else on host memory (an MPI-3 shared window).
include(${CMAKE_CURRENT_LIST_DIR}/gpu_visible.cmake)

function(run_and_check label backend timing batch_calls)
  set(output ${OUTPUT_DIR}/sweep_timing_${label}.h5)
  file(REMOVE ${output})
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} sweep -b 8 -e 64K -f 16 -n 3 -w 1
                          --op allreduce,allgather --collective ${backend} --timing ${timing}
                          --batch-calls ${batch_calls} -o ${output}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sweep ${label} failed (${rc}):\n${out}\n${err}")
  endif()
  set(memory host)
  if(backend STREQUAL "oneshot" AND GPU_VISIBLE)
    set(memory device)
  endif()
  foreach(expected "collective ${backend} on ${memory} memory" "#  timing: ${timing}" "# timing overhead k=2: "
                   "# wrong elements: 0 OK")
    string(FIND "${out}" "${expected}" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "sweep ${label} output lacks '${expected}':\n${out}")
    endif()
  endforeach()
  set(recorded_calls ${batch_calls})
  if(timing STREQUAL "per-call")
    set(recorded_calls 0)
  endif()
  execute_process(COMMAND /usr/bin/python3 ${CHECKER} ${output} ${backend} ${timing} ${recorded_calls} ${memory}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sweep ${label}: HDF5 check failed:\n${out}\n${err}")
  endif()
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 1 ${MPI_BENCH} verify --all ${output}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sweep ${label}: mpi_bench verify refused the file (${rc}):\n${out}\n${err}")
  endif()
  file(REMOVE ${output})
endfunction()

run_and_check(oneshot_batch oneshot batch 10)
run_and_check(oneshot_per_call oneshot per-call 10)
run_and_check(mpi_batch mpi batch 10)
