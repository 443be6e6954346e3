# `mpi_bench run --ablate-collective oneshot` on 2 ranks with a tiny config:
# the ablation's sweeps, registration and TP-2 steps land below
# /ablation/oneshot without touching the study's own groups, the report shows
# the collective term of both implementations per k, and `mpi_bench verify`
# accepts the file. Bad ablation input (and an ablation whose one-shot buffers
# do not fit): one-line error, exit 2, no file.
set(out ${OUTPUT_DIR}/study_ablation)
file(REMOVE_RECURSE ${out})
set(study_args --model ${TINY_CONFIG} --tp 1,2 --batch 1,2 --context 16 -w 1 -n 4 --sweep-iters 3)
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} run ${study_args} --collective mpi
                        --ablate-collective oneshot -o ${out}
                RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run --ablate-collective oneshot failed (${rc}):\n${stdout}\n${stderr}")
endif()
execute_process(COMMAND /usr/bin/python3 ${CHECKER} ${out}
                RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ablation check failed:\n${stdout}\n${stderr}")
endif()
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 1 ${MPI_BENCH} verify --all ${out}/study.h5
                RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpi_bench verify refused the ablation's file (${rc}):\n${stdout}\n${stderr}")
endif()
file(REMOVE_RECURSE ${out})

# Bad input: exit 2, exactly one error line naming the value, no directory.
function(expect_refused label expected)
  set(bad ${OUTPUT_DIR}/study_ablation_${label})
  file(REMOVE_RECURSE ${bad})
  execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} run ${study_args} ${ARGN} -o ${bad}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 120)
  string(REPLACE ";" "," flat "${stderr}")  # a ';' in a message would split the list of lines
  string(REGEX MATCHALL "tpbench: error: [^\n]*" lines "${flat}")
  list(LENGTH lines count)
  string(FIND "${stderr}" "${expected}" found)
  if(NOT rc EQUAL 2 OR NOT count EQUAL 1 OR found EQUAL -1 OR EXISTS ${bad})
    message(FATAL_ERROR "${label}: exit ${rc} (expected 2), ${count} error line(s) (expected 1 with "
                        "'${expected}'), directory left: ${bad}\n${stderr}")
  endif()
endfunction()
expect_refused(unknown "tpbench: error: --ablate-collective: invalid value 'foo'" --ablate-collective foo)
expect_refused(own "tpbench: error: --ablate-collective: 'mpi' is the study's own collective"
               --collective mpi --ablate-collective mpi)
# The study's own steps (MPI) fit 8 MiB; the ablation's hold the one-shot
# window's 16 MiB segment besides them, and are refused before anything runs.
expect_refused(memory "tpbench: error: memory: TP-2 b=2 c=16 needs" --collective mpi --ablate-collective oneshot
               --mem-per-device 8M)
