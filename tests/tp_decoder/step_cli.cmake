# Runs `mpi_bench step` as a user would: --check passes at TP 1,2,4 on four
# ranks (GQA, MQA with kv_heads < k, qwen2 with biases, mixtral's experts) and writes the HDF5
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

# A mixture-of-experts model at points whose routing margin clears the check's
# tolerance (tp_equivalence_test): the experts each layer touched are stored.
run_ok(step --model ${CONFIGS}/tiny-mixtral.json --tp 1,2,4 --batch 1,3 --context 0,33 --check -w 1 -n 2
       -o ${WORK}/step_tiny-mixtral.h5 --overwrite)
execute_process(COMMAND h5ls -r ${WORK}/step_tiny-mixtral.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out TIMEOUT 30)
if(NOT out MATCHES "/step/k4/b3_c33/experts_touched +Dataset {2, 8}")
  message(FATAL_ERROR "step_tiny-mixtral.h5: no /step/k4/b3_c33/experts_touched of 2 x 8\n${out}")
endif()

# As stored on four ranks: t_step_us one column per TP group, t_rank_us one per rank.
execute_process(COMMAND h5ls -r ${WORK}/step_tiny-llama.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out TIMEOUT 30)
foreach(expected "/step/k1/b1_c0/t_step_us +Dataset {2, 4}" "/step/k2/b1_c0/t_step_us +Dataset {2, 2}"
                 "/step/k4/b1_c0/t_step_us +Dataset {2, 1}" "/step/k2/b1_c0/t_rank_us +Dataset {2, 4}")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "step_tiny-llama.h5: no ${expected}\n${out}")
  endif()
endforeach()

# Every step point of k > 1 names its group's collective and the memory its
# data lived in: the backend's default, MPI on host memory (cpu) or NCCL on
# device memory (cuda). k = 1 has no collective: neither attribute, n_ar = 0.
execute_process(COMMAND /usr/bin/python3 -c [=[
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    for k in (2, 4):
        g = f[f"/step/k{k}/b1_c0"]
        want = {"cpu": ("mpi", "host"), "cuda": ("nccl", "device")}[g.attrs["backend"]]
        got = (g.attrs["collective"], g.attrs["collective_memory"])
        assert got == want, (k, got, want)
        assert g.attrs["n_ar"] > 0, (k, g.attrs["n_ar"])
    g = f["/step/k1/b1_c0"]
    assert "collective" not in g.attrs and "collective_memory" not in g.attrs, dict(g.attrs)
    assert g.attrs["n_ar"] == 0, g.attrs["n_ar"]
    assert "t_ar_insitu_us" not in g, list(g)
]=] ${WORK}/step_tiny-llama.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step_tiny-llama.h5: collective attributes\n${out}\n${err}")
endif()

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

# replay: one rank runs TP-k shard shapes, no collectives; the other ranks wait.
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} replay --model ${CONFIGS}/tiny-mqa.json --tp 1,4,8
                        --batch 2 --context 9 -w 1 -n 3 -o ${WORK}/replay.h5 --overwrite
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n +8 +2 +9 ")
  message(FATAL_ERROR "replay: exit ${rc}\n${out}\n${err}")
endif()

# membw: every rank reads at once and rank 0 prints each rank's bandwidth.
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} membw --bytes 16M -w 1 -n 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "all ranks together: [0-9.]+ GB/s")
  message(FATAL_ERROR "membw: exit ${rc}\n${out}\n${err}")
endif()

# The replay file: one column per point, under /replay/k{K}/b{B}_c{C}.
execute_process(COMMAND h5ls -r ${WORK}/replay.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out TIMEOUT 30)
if(NOT out MATCHES "/replay/k8/b2_c9/t_step_us +Dataset {3, 1}")
  message(FATAL_ERROR "replay.h5: no /replay/k8/b2_c9/t_step_us of 3 x 1\n${out}")
endif()

# A group of one rank opens no communicator (the factory's count, printed last):
# TP-1 alone opens none, whichever collective is named; TP-1,2 on two ranks one
# for the launch and one for the pair.
foreach(collective mpi oneshot)
  execute_process(COMMAND ${MPIEXEC} -n 1 ${MPI_BENCH} step --model ${CONFIGS}/tiny-llama.json --tp 1 --batch 1,2
                          --context 0,8 --backend cpu --collective ${collective} -w 1 -n 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "# communicators opened on rank 0: 0\n")
    message(FATAL_ERROR "step --tp 1 --collective ${collective}: exit ${rc}, expected no communicator\n${out}\n${err}")
  endif()
endforeach()
execute_process(COMMAND ${MPIEXEC} --oversubscribe -n 2 ${MPI_BENCH} step --model ${CONFIGS}/tiny-llama.json --tp 1,2
                        --batch 1 --context 8 --backend cpu -w 1 -n 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "# communicators opened on rank 0: 2\n")
  message(FATAL_ERROR "step --tp 1,2 on 2 ranks: exit ${rc}, expected 2 communicators\n${out}\n${err}")
endif()
