# Warnings and sanitizers applied to every tpbench target through one interface library.
add_library(tpb_warnings INTERFACE)
target_compile_options(tpb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)

if(TPB_SANITIZE)
  target_compile_options(tpb_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(tpb_warnings INTERFACE -fsanitize=address,undefined)
endif()
