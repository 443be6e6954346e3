# System libraries, all from Debian's apt (see jobs/setup.sh).
find_package(MPI REQUIRED COMPONENTS C)
# C API only: the deprecated MPI C++ bindings would need libmpi_cxx.
add_compile_definitions(OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)

# OpenBLAS: prefer the OpenMP build (libopenblas-openmp-dev) so BLAS threads
# and our own OpenMP kernels share one thread pool.
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(TPB_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-openmp x86_64-linux-gnu/openblas-openmp)
if(NOT TPB_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "cblas.h not found: install libopenblas-openmp-dev (jobs/setup.sh does)")
endif()
add_library(tpb_blas INTERFACE)
target_link_libraries(tpb_blas INTERFACE ${BLAS_LIBRARIES})
target_include_directories(tpb_blas INTERFACE ${TPB_CBLAS_INCLUDE_DIR})

add_library(tpb_hdf5 INTERFACE)
target_include_directories(tpb_hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(tpb_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(tpb_hdf5 INTERFACE ${HDF5_C_DEFINITIONS})

if(TPB_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
