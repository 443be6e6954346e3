# The check every CLI-rejection script makes of a refused command: the one
# line of `err` that matches `line_regex`, exactly one, names `expected_text`.
# `what` is the command, for the failure message.
function(tpb_expect_one_error_line what line_regex expected_text err)
  string(REGEX MATCHALL "${line_regex}[^\n]*" lines "${err}")
  list(LENGTH lines n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "${what}: expected one error line, got ${n}:\n${err}")
  endif()
  string(FIND "${lines}" "${expected_text}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${what}: error line does not name '${expected_text}': ${lines}")
  endif()
endfunction()
