# Warnings and sanitizers applied to every tpbench target through one interface library.
add_library(tpb_warnings INTERFACE)
target_compile_options(tpb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-Wshadow-uncaptured-local>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)

# AddressSanitizer + UndefinedBehaviorSanitizer (jobs/sanitize.sh). Any UB
# finding aborts the test that hit it instead of scrolling past. Build with
# -DTPB_CUDA=OFF: nvcc-compiled objects are not instrumented.
if(TPB_SANITIZE OR TPB_FUZZ)
  target_compile_options(tpb_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(tpb_warnings INTERFACE -fsanitize=address,undefined)
endif()

# libFuzzer (jobs/fuzz.sh): clang only. Library code gets the coverage
# instrumentation; tests/fuzz links each fuzzer with -fsanitize=fuzzer.
if(TPB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TPB_FUZZ needs clang's libFuzzer: configure with -DCMAKE_C_COMPILER=clang-14 "
                        "-DCMAKE_CXX_COMPILER=clang++-14 (found ${CMAKE_CXX_COMPILER_ID})")
  endif()
  target_compile_options(tpb_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()
