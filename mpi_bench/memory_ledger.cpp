#include "mpi_bench/memory_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/error.hpp"
#include "common/parse.hpp"

namespace tpb {
namespace {

std::int64_t to_int64(std::uint64_t bytes) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(bytes, std::numeric_limits<std::int64_t>::max()));
}

}  // namespace

std::string readable_bytes(std::int64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (unit < 5 && value >= 1024) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", value, units[unit]);
}

MemoryBudget mem_per_device_budget(const std::string& text) {
  const std::uint64_t bytes = parse_bytes("--mem-per-device", text);
  if (bytes == 0)
    throw UsageError(fmt::format("--mem-per-device: invalid value '{}' (expected a byte count >= 1, such as 120G)", text));
  return MemoryBudget{to_int64(bytes), fmt::format("--mem-per-device {}", text)};
}

MemoryBudget host_memory_budget(const HostMemory& host, int ranks_on_node) {
  TPB_CHECK(ranks_on_node >= 1, "host memory budget: no ranks on this node");
  const std::int64_t per_rank = to_int64(host.usable_bytes() / static_cast<std::uint64_t>(ranks_on_node));
  std::string what = fmt::format("MemAvailable {}", readable_bytes(to_int64(host.mem_available_bytes)));
  if (host.cgroup_limit)
    what = fmt::format("min({}, cgroup v{} limit {} in {})", what, host.cgroup_limit->version,
                       readable_bytes(to_int64(host.cgroup_limit->bytes)), host.cgroup_limit->file);
  return MemoryBudget{per_rank, fmt::format("CPU: {} / {} rank{} on this node", what, ranks_on_node,
                                            ranks_on_node == 1 ? "" : "s")};
}

MemoryBudget device_memory_budget(const DeviceMemory& device, int ranks_on_device) {
  TPB_CHECK(ranks_on_device >= 1, "device memory budget: no ranks on this device");
  return MemoryBudget{to_int64(device.free_bytes / static_cast<std::uint64_t>(ranks_on_device)),
                      fmt::format("CUDA: cudaMemGetInfo free {} of {} / {} rank{} on this device",
                                  readable_bytes(to_int64(device.free_bytes)),
                                  readable_bytes(to_int64(device.total_bytes)), ranks_on_device,
                                  ranks_on_device == 1 ? "" : "s")};
}

MemoryBudget memory_budget(const std::optional<MemoryBudget>& mem_per_device, BackendKind backend,
                           const RankContext& ranks) {
  if (mem_per_device) return *mem_per_device;
  MemoryBudget budget;
  if (backend == BackendKind::cuda) {
    const std::optional<DeviceMemory> device = query_device_memory();
    if (!device)
      throw UsageError("--mem-per-device: not given, and no CUDA device is visible to size the budget from");
    const int sharing = static_cast<int>(std::count_if(ranks.rank_map.begin(), ranks.rank_map.end(), [&](const auto& p) {
      return p.node == ranks.self.node && p.gpu == ranks.self.gpu;
    }));
    budget = device_memory_budget(*device, std::max(1, sharing));
  } else {
    budget = host_memory_budget(query_host_memory(), ranks.self.local_size);
  }
  if (budget.bytes <= 0)
    throw UsageError(fmt::format("--mem-per-device: not given, and this rank may use 0 bytes ({})", budget.source));
  return budget;
}

std::optional<std::string> check_fits(const MemoryEstimate& e, const MemoryBudget& budget) {
  if (e.total() <= budget.bytes) return std::nullopt;
  return fmt::format(
      "memory: TP-{} b={} c={} needs {} per rank (weights {}, KV cache {}, activations {}, workspaces {}, "
      "communication buffers {}), more than the {} available ({}); lower --batch or --context, raise --tp, or set "
      "--mem-per-device",
      e.tp, e.batch, e.context, readable_bytes(e.total()), readable_bytes(e.weights), readable_bytes(e.kv_cache),
      readable_bytes(e.activations), readable_bytes(e.workspaces), readable_bytes(e.comm_buffers),
      readable_bytes(budget.bytes), budget.source);
}

DeviceMemoryLine ledger_line(const MemoryTerms& terms) {
  TPB_CHECK(terms.kv_cache.fixed == 0 && terms.kv_cache.per_sequence == 0 && terms.weights.per_sequence == 0 &&
                terms.weights.per_sequence_token == 0,
            "ledger line: the KV cache must be bytes per token and the weights fixed");
  DeviceMemoryLine line;
  line.weight_bytes = terms.weights.fixed;
  line.fixed_bytes = terms.activations.fixed + terms.workspaces.fixed + terms.comm_buffers.fixed;
  line.sequence_bytes =
      terms.activations.per_sequence + terms.workspaces.per_sequence + terms.comm_buffers.per_sequence;
  line.kv_bytes_per_token = terms.kv_cache.per_sequence_token;
  line.scratch_bytes_per_token = terms.activations.per_sequence_token + terms.workspaces.per_sequence_token +
                                 terms.comm_buffers.per_sequence_token;
  return line;
}

KvCacheShape kv_cache_shape(const ModelConfig& config, ElementType dtype) {
  return KvCacheShape{config.num_layers, config.num_kv_heads, config.head_dim, static_cast<int>(element_size(dtype))};
}

}  // namespace tpb
