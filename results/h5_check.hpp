#pragma once
// H5_CHECK: a negative HDF5 return becomes tpb::Error naming the call.
// HDF5's own error stack printing is switched off by H5File (one line per failure).
#include <hdf5.h>

#include "common/error.hpp"

#define H5_CHECK(call)                                                                      \
  ([&]() {                                                                                  \
    const auto tpb_status_ = (call);                                                        \
    if (tpb_status_ < 0) ::tpb::throw_error("HDF5", static_cast<long long>(tpb_status_), #call, __FILE__, __LINE__); \
    return tpb_status_;                                                                     \
  }())
