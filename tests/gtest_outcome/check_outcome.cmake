# Runs a planted GoogleTest binary (optionally through mpiexec) on a subset of
# its tests and checks the exit code: 77 (ctest: skipped) only when every test
# run was skipped; a failure beside a skip must fail.
# -DLAUNCH="mpiexec;-n;2" (optional) -DBINARY=path
set(cases
  "Planted.Skips=77"
  "Planted.Skips:Planted.Fails=1"
  "Planted.Skips:Planted.Passes=0"
  "Planted.Passes=0")
foreach(case IN LISTS cases)
  string(REPLACE "=" ";" parts "${case}")
  list(GET parts 0 filter)
  list(GET parts 1 expected)
  execute_process(COMMAND ${LAUNCH} ${BINARY} --gtest_filter=${filter}
                  RESULT_VARIABLE code OUTPUT_QUIET ERROR_QUIET)
  if(NOT code STREQUAL expected)
    message(FATAL_ERROR "${LAUNCH} ${BINARY} --gtest_filter=${filter}: exit ${code}, expected ${expected}")
  endif()
  message(STATUS "--gtest_filter=${filter}: exit ${code} as expected")
endforeach()
