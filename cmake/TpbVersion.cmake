# Tool version and git SHA, baked into a generated header for /meta
# provenance. The header is written at every build (cmake/WriteVersionHeader.cmake),
# not at configure time: an incremental build after a commit must not record
# the commit the tree was configured at.
set(_tpb_version_header ${CMAKE_CURRENT_BINARY_DIR}/generated/tpb_version.hpp)
set(_tpb_version_command ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
    -DINPUT=${CMAKE_CURRENT_SOURCE_DIR}/common/version.hpp.in -DOUTPUT=${_tpb_version_header}
    -DPROJECT_VERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/WriteVersionHeader.cmake)
# Once at configure time too, so the header exists before the first build.
execute_process(COMMAND ${_tpb_version_command})
add_custom_target(tpb_version ALL COMMAND ${_tpb_version_command} BYPRODUCTS ${_tpb_version_header}
                  COMMENT "tpb_version: the git SHA /meta records")
