# CUDA detection. With TPB_CUDA=AUTO the CUDA backend and the NCCL communicator
# are compiled whenever nvcc is found (also on machines without a GPU: nothing
# here needs a device). Only cudart, cuBLAS(Lt) and NCCL are linked, never the
# driver library libcuda, so binaries start on hosts without a GPU driver.
set(TPB_HAVE_CUDA OFF)
if(NOT TPB_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # "native" needs a visible GPU; the default targets A100 and H100/H200.
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 knows no CUDA20 dialect flags for nvcc: .cu files are C++17, so
    # headers they include must stay C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    find_package(NCCL REQUIRED)
    set(TPB_HAVE_CUDA ON)
  elseif(TPB_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TPB_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or CUDACXX)")
  endif()
endif()
