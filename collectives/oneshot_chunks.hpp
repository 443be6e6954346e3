#pragma once
// What the CPU and CUDA one-shot communicators share: the capacity of one
// exchange, and how a payload larger than it goes through as consecutive
// chunks, one exchange (epoch) each. Each of them only says how one chunk is
// exchanged.
#include <algorithm>
#include <cstddef>

#include "collectives/communicator.hpp"

namespace tpb {

// Bytes one rank can contribute to one exchange; larger payloads are cut into
// chunks of this size. Each rank's buffer holds two slots of this size
// (consecutive exchanges alternate between them).
inline constexpr std::size_t kDefaultOneshotCapacityBytes = std::size_t{8} << 20;

// UsageError unless `capacity_bytes` is a positive multiple of 64: whole cache
// lines per slot, and whole elements of every datatype per chunk.
void require_oneshot_capacity(std::size_t capacity_bytes);

// Calls reduce(send_chunk, recv_chunk, count) on each chunk of at most
// `capacity_bytes` of an all-reduce of `count` elements of `type`, in order.
// A template, not a std::function: it sits on the path of sub-microsecond calls.
template <typename ReduceChunk>
void for_each_reduce_chunk(const void* send, void* recv, std::size_t count, DataType type, std::size_t capacity_bytes,
                           ReduceChunk&& reduce) {
  const std::size_t element_bytes = element_size(type);
  const std::size_t chunk = capacity_bytes / element_bytes;
  for (std::size_t offset = 0; offset < count; offset += chunk) {
    const std::size_t skip = offset * element_bytes;
    reduce(static_cast<const char*>(send) + skip, static_cast<char*>(recv) + skip, std::min(chunk, count - offset));
  }
}

// Calls gather(send_chunk, recv_chunk, bytes, stride_bytes) on each chunk of
// at most `capacity_bytes` of an all-gather of `count_per_rank` elements of
// `type`: rank r's part of the chunk goes to recv_chunk + r * stride_bytes.
template <typename GatherChunk>
void for_each_gather_chunk(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                           std::size_t capacity_bytes, GatherChunk&& gather) {
  const std::size_t rank_bytes = count_per_rank * element_size(type);
  for (std::size_t offset = 0; offset < rank_bytes; offset += capacity_bytes)
    gather(static_cast<const char*>(send) + offset, static_cast<char*>(recv) + offset,
           std::min(capacity_bytes, rank_bytes - offset), rank_bytes);
}

}  // namespace tpb
