#pragma once
// One small struct per collective, in nccl-tests' shape: how a payload size
// maps to element counts, how bus bandwidth relates to algorithm bandwidth,
// how to issue one call, and what a correct result holds. The sweep harness
// (sweep_harness.hpp) is shared by all of them.
#include <cstddef>
#include <string>

#include "collectives/communicator.hpp"

namespace tpb {

struct CollectiveSpec {
  std::string name;  // "all_reduce": table and HDF5 operation attribute

  // Elements each rank sends for a payload of `bytes` (nccl-tests' size
  // column: all-reduce counts the vector, all-gather the gathered output).
  std::size_t (*send_count)(std::size_t bytes, std::size_t element_bytes, int group_size);
  // Elements each rank receives, and the payload the size column reports.
  std::size_t (*recv_count)(std::size_t send_count, int group_size);
  std::size_t (*payload_bytes)(std::size_t send_count, std::size_t element_bytes, int group_size);
  // busbw = algbw * bus_factor(k): what one link carries, comparable across k.
  double (*bus_factor)(int group_size);
  // Where a rank's input sits inside the receive buffer when in place, in elements.
  std::size_t (*in_place_offset)(int rank, std::size_t send_count);
  // Issues one call on `stream`.
  void (*issue)(Communicator& group, const void* send, void* recv, std::size_t send_count, DataType type,
                StreamHandle stream);
  // Expected output element `index` when rank r's input element i is input_value(r, i, modulus).
  double (*expected)(std::size_t index, std::size_t send_count, int group_size, int modulus);
};

// Input data: small whole numbers that vary with rank and index, below `modulus`.
inline double input_value(int rank, std::size_t index, int modulus) {
  return static_cast<double>((index * 7 + static_cast<std::size_t>(rank) * 3 + 1) % static_cast<std::size_t>(modulus));
}

const CollectiveSpec& all_reduce_spec();  // sum; busbw factor 2(k-1)/k
const CollectiveSpec& all_gather_spec();  // busbw factor (k-1)/k

// "allreduce" / "all_reduce" or "allgather" / "all_gather"; UsageError otherwise.
const CollectiveSpec& collective_spec_named(const std::string& name);

}  // namespace tpb
