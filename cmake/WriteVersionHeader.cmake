# Writes the version header with the git SHA of the tree being built (run at
# every build by the tpb_version target in cmake/TpbVersion.cmake, so /meta
# names the commit a binary was built from, not the one it was configured at).
# configure_file rewrites the header only when its text changes, so an
# unchanged tree rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DINPUT=... -DOUTPUT=... -DPROJECT_VERSION=... -P WriteVersionHeader.cmake
find_package(Git QUIET)
set(TPB_GIT_SHA "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE _sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0)
    set(TPB_GIT_SHA "${_sha}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${SOURCE_DIR}
      OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_dirty)
      set(TPB_GIT_SHA "${TPB_GIT_SHA}-dirty")
    endif()
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
