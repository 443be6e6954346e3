#include "common/choices.hpp"

#include <fmt/format.h>

#include <vector>

#include "common/cuda_info.hpp"
#include "common/error.hpp"

namespace tpb {
namespace {

template <typename Kind, std::size_t N>
std::string_view name_of(const std::array<std::pair<Kind, std::string_view>, N>& names, Kind kind) {
  for (const auto& [k, name] : names)
    if (k == kind) return name;
  return "?";
}

template <typename Kind, std::size_t N>
Kind parse_kind(const std::array<std::pair<Kind, std::string_view>, N>& names, std::string_view flag,
                std::string_view text) {
  std::vector<std::string_view> valid;
  for (const auto& [kind, name] : names) {
    if (name == text) return kind;
    valid.push_back(name);
  }
  const std::string_view last = valid.back();
  valid.pop_back();
  throw UsageError(fmt::format("{}: invalid value '{}' (expected {} or {})", flag, text, fmt::join(valid, ", "), last));
}

}  // namespace

std::string_view to_string(BackendKind kind) { return name_of(kBackendNames, kind); }
std::string_view to_string(CollectiveKind kind) { return name_of(kCollectiveNames, kind); }

BackendKind parse_backend_kind(std::string_view flag, std::string_view text) {
  return parse_kind(kBackendNames, flag, text);
}

CollectiveKind parse_collective_kind(std::string_view flag, std::string_view text) {
  return parse_kind(kCollectiveNames, flag, text);
}

BackendKind default_backend_kind() {
  const CudaInfo cuda = query_cuda_info();
  return cuda.compiled_in && cuda.device_count > 0 ? BackendKind::cuda : BackendKind::cpu;
}

CollectiveKind default_collective_kind(BackendKind backend) {
  return backend == BackendKind::cuda ? CollectiveKind::nccl : CollectiveKind::mpi;
}

}  // namespace tpb
