# Sets GPU_VISIBLE to 1 where this build has CUDA (HAVE_CUDA) and the machine
# running the test shows a GPU, else 0: the sweep's default collective and the
# memory the one-shot works on follow it.
set(GPU_VISIBLE 0)
if(HAVE_CUDA)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
  if(no_gpu EQUAL 0)
    set(GPU_VISIBLE 1)
  endif()
endif()
