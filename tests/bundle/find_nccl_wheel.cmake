# FindNCCL on the Python wheel's layout: site-packages/nvidia/nccl holding only
# lib/libnccl.so.2 (no unversioned libnccl.so) and include/nccl.h. Built from
# the CUDA toolkit's NCCL; the toolkit itself is hidden from the search
# (CUDAToolkit_LIBRARY_ROOT points nowhere, /usr/local/cuda ignored), so only
# the wheel can satisfy it.
# Inputs: -DSOURCE_NCCL_LIB=... -DSOURCE_NCCL_INCLUDE=... -DCMAKE_DIR=... -DWORK=...
set(wheel "${WORK}/site-packages/nvidia/nccl")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${wheel}/lib" "${wheel}/include")
file(COPY_FILE "${SOURCE_NCCL_INCLUDE}/nccl.h" "${wheel}/include/nccl.h")
file(CREATE_LINK "${SOURCE_NCCL_LIB}" "${wheel}/lib/libnccl.so.2" SYMBOLIC)

execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/find_nccl_project" -B "${WORK}/build"
          -DTPB_CMAKE_DIR=${CMAKE_DIR} -DNCCL_HOME=${wheel} -DCUDAToolkit_LIBRARY_ROOT=${WORK}/none
          "-DCMAKE_IGNORE_PREFIX_PATH=/usr/local/cuda;/usr/local/cuda-13.0;/usr"
          "-DCMAKE_IGNORE_PATH=/usr/local/cuda/lib;/usr/local/cuda/lib64;/usr/local/cuda/include"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FindNCCL did not find the wheel layout at ${wheel}:\n${out}\n${err}")
endif()
foreach(expected "NCCL_LIBRARY=${wheel}/lib/libnccl.so.2" "NCCL_INCLUDE_DIR=${wheel}/include")
  string(FIND "${out}" "probe: ${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "FindNCCL: expected ${expected}, got:\n${out}")
  endif()
endforeach()
string(REGEX MATCH "NCCL_VERSION=[0-9]+\\.[0-9]+\\.[0-9]+" version "${out}")
if(NOT version)
  message(FATAL_ERROR "FindNCCL: no version read from the wheel's nccl.h:\n${out}")
endif()
message(STATUS "FindNCCL found the wheel layout: ${version}")
