# Compile time. Most of a new build is the same third-party headers (CLI11,
# fmt, nlohmann-json, HDF5, MPI and the standard library under them) parsed
# again in every translation unit, and their inline code optimised again in
# each. Three means cut it, each of which can be switched off on the cmake
# command line:
#   ccache when installed           -DTPB_CCACHE=OFF (or CCACHE_DISABLE=1 in the environment)
#   unity build                     -DCMAKE_UNITY_BUILD=OFF
#   precompiled headers             -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON
# With both of the last two off, every source file is compiled on its own
# includes, which is how to check that a file includes what it uses.

option(TPB_CCACHE "Compile through ccache when it is installed" ON)
if(TPB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(TPB_CCACHE_PROGRAM ccache)
  mark_as_advanced(TPB_CCACHE_PROGRAM)
  if(TPB_CCACHE_PROGRAM)
    # ccache caches compiles that use a precompiled header only with these
    # sloppiness settings (ccache manual, "Precompiled headers"); ccache 4.7
    # takes them from the environment only.
    set(_tpb_launcher ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${TPB_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${_tpb_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_tpb_launcher})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${_tpb_launcher})
  endif()
endif()

# Unity build unless the command line says otherwise. Files that cannot share a
# translation unit with their neighbours (an anonymous-namespace name or a
# macro they both define) set SKIP_UNITY_BUILD_INCLUSION; targets whose code is
# what the benchmark times set UNITY_BUILD OFF (CMakeLists.txt), so a unity
# build never changes how the measured code is compiled.
if(NOT DEFINED CMAKE_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
endif()
if(NOT DEFINED CMAKE_UNITY_BUILD_BATCH_SIZE)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
endif()
# Static libraries wait for no other library to be built before compiling.
set(CMAKE_OPTIMIZE_DEPENDENCIES ON)

# tpb_precompile(target HEADER...): precompile HEADER... for the C++ sources of
# target (CUDA sources keep their own includes).
function(tpb_precompile target)
  set(headers)
  foreach(h IN LISTS ARGN)
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
