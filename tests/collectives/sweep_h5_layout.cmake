# A small real sweep on 2 ranks, then h5py (Debian's /usr/bin/python3) reads
# the layout the pipeline and users rely on.
file(REMOVE ${OUTPUT})
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} sweep -b 8 -e 64K -f 8 -n 3 -w 1
                        --op allreduce,allgather -o ${OUTPUT} --csv ${OUTPUT}.csv --json ${OUTPUT}.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sweep failed (${rc}):\n${out}\n${err}")
endif()
foreach(expected "# fit all_reduce k=1" "# fit all_reduce k=2" "# fit all_gather k=2" "# wrong elements: 0 OK")
  string(FIND "${out}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "sweep output lacks '${expected}':\n${out}")
  endif()
endforeach()
execute_process(COMMAND /usr/bin/python3 ${CHECKER} ${OUTPUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "HDF5 layout check failed:\n${out}\n${err}")
endif()
# A second run must refuse the existing file and leave it alone.
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} sweep -b 8 -e 8 -o ${OUTPUT}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "sweep over an existing results file: exit ${rc}, expected 2\n${err}")
endif()
file(REMOVE ${OUTPUT} ${OUTPUT}.csv ${OUTPUT}.json)
