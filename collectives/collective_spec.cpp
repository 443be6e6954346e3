#include "collectives/collective_spec.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {
namespace {

CollectiveSpec make_all_reduce() {
  CollectiveSpec spec;
  spec.name = "all_reduce";
  spec.send_count = [](std::size_t bytes, std::size_t element_bytes, int) { return bytes / element_bytes; };
  spec.recv_count = [](std::size_t send_count, int) { return send_count; };
  spec.payload_bytes = [](std::size_t send_count, std::size_t element_bytes, int) { return send_count * element_bytes; };
  // Ring all-reduce: each rank sends and receives 2(k-1)/k of the vector.
  spec.bus_factor = [](int k) { return 2.0 * (k - 1) / k; };
  spec.in_place_offset = [](int, std::size_t) { return std::size_t{0}; };
  spec.issue = [](Communicator& group, const void* send, void* recv, std::size_t count, DataType type,
                  StreamHandle stream) { group.all_reduce(send, recv, count, type, stream); };
  spec.expected = [](std::size_t index, std::size_t, int k, int modulus) {
    double sum = 0.0;
    for (int rank = 0; rank < k; ++rank) sum += input_value(rank, index, modulus);
    return sum;
  };
  return spec;
}

CollectiveSpec make_all_gather() {
  CollectiveSpec spec;
  spec.name = "all_gather";
  spec.send_count = [](std::size_t bytes, std::size_t element_bytes, int k) {
    return bytes / (element_bytes * static_cast<std::size_t>(k));
  };
  spec.recv_count = [](std::size_t send_count, int k) { return send_count * static_cast<std::size_t>(k); };
  spec.payload_bytes = [](std::size_t send_count, std::size_t element_bytes, int k) {
    return send_count * element_bytes * static_cast<std::size_t>(k);
  };
  // Each rank receives the k-1 slices it does not own.
  spec.bus_factor = [](int k) { return static_cast<double>(k - 1) / k; };
  spec.in_place_offset = [](int rank, std::size_t send_count) { return static_cast<std::size_t>(rank) * send_count; };
  spec.issue = [](Communicator& group, const void* send, void* recv, std::size_t count, DataType type,
                  StreamHandle stream) { group.all_gather(send, recv, count, type, stream); };
  spec.expected = [](std::size_t index, std::size_t send_count, int, int modulus) {
    return input_value(static_cast<int>(index / send_count), index % send_count, modulus);
  };
  return spec;
}

}  // namespace

const CollectiveSpec& all_reduce_spec() {
  static const CollectiveSpec spec = make_all_reduce();
  return spec;
}

const CollectiveSpec& all_gather_spec() {
  static const CollectiveSpec spec = make_all_gather();
  return spec;
}

const CollectiveSpec& collective_spec_named(const std::string& name) {
  if (name == "allreduce" || name == "all_reduce") return all_reduce_spec();
  if (name == "allgather" || name == "all_gather") return all_gather_spec();
  throw UsageError(fmt::format("--op: invalid value '{}' (expected allreduce or allgather)", name));
}

}  // namespace tpb
