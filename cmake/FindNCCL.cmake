# FindNCCL: NCCL ships no CMake package. Looks in NCCL_HOME (variable or
# environment), then the Python NCCL wheel (site-packages/nvidia/nccl, found
# through python3 when one is on PATH), then the CUDA toolkit, then the system
# paths. The wheel holds only lib/libnccl.so.2 (no unversioned libnccl.so), and
# its nccl.h sits next to it in include/, so the header is looked for beside
# the library first.
# Defines NCCL_FOUND, NCCL_VERSION and the imported target NCCL::nccl.
set(_nccl_hints ${NCCL_HOME} $ENV{NCCL_HOME})
if(NOT NCCL_LIBRARY)
  find_program(_nccl_python NAMES python3)
  mark_as_advanced(_nccl_python)
  if(_nccl_python)
    execute_process(
      COMMAND ${_nccl_python} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
      OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _nccl_wheel_rc)
    if(_nccl_wheel_rc EQUAL 0 AND IS_DIRECTORY "${_nccl_wheel}")
      list(APPEND _nccl_hints "${_nccl_wheel}")
    endif()
  endif()
endif()
list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda)

find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_hints}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
set(_nccl_beside)
if(NCCL_LIBRARY)
  get_filename_component(_nccl_libdir "${NCCL_LIBRARY}" DIRECTORY)
  set(_nccl_beside "${_nccl_libdir}/../include" "${_nccl_libdir}/../../include")
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_beside} ${_nccl_hints} PATH_SUFFIXES include)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_major REGEX "^#define NCCL_MAJOR +[0-9]+")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_minor REGEX "^#define NCCL_MINOR +[0-9]+")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_patch REGEX "^#define NCCL_PATCH +[0-9]+")
  string(REGEX REPLACE "[^0-9]*([0-9]+)" "\\1" _nccl_major "${_nccl_major}")
  string(REGEX REPLACE "[^0-9]*([0-9]+)" "\\1" _nccl_minor "${_nccl_minor}")
  string(REGEX REPLACE "[^0-9]*([0-9]+)" "\\1" _nccl_patch "${_nccl_patch}")
  set(NCCL_VERSION "${_nccl_major}.${_nccl_minor}.${_nccl_patch}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
