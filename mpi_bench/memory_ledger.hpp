#pragma once
// One memory ledger for the whole tool: what a rank may use (--mem-per-device,
// or what the host or device has free, shared among the ranks on it), the
// pre-allocation check of a step grid against it, and the estimator's terms
// as the KV ledger reads them. `mpi_bench kv` and the check of step, replay
// and run go through these same functions, so the capacity the ledger
// recommends is never one the check refuses.
#include <cstdint>
#include <optional>
#include <string>

#include "common/device_memory.hpp"
#include "common/host_memory.hpp"
#include "mpi_bench/rank_context.hpp"
#include "predictor/kv_ledger.hpp"
#include "tp_decoder/memory_estimate.hpp"

namespace tpb {

// What one rank may use on its device, and where the figure came from.
struct MemoryBudget {
  std::int64_t bytes = 0;
  std::string source;  // e.g. "--mem-per-device 120G", "CPU: MemAvailable 22.7 GiB / 2 ranks on this node"
};

// --mem-per-device SIZE in the project's size syntax (parse_bytes: 8, 64K,
// 16M, 120G); UsageError naming the flag for a bad size or 0.
MemoryBudget mem_per_device_budget(const std::string& text);

// CPU: min(MemAvailable, cgroup limit) shared equally by the ranks of the node.
MemoryBudget host_memory_budget(const HostMemory& host, int ranks_on_node);
// CUDA: the device's free memory (cudaMemGetInfo) shared by the ranks bound to it.
MemoryBudget device_memory_budget(const DeviceMemory& device, int ranks_on_device);

// The budget of this rank: --mem-per-device when given, else the host's or
// the device's availability for `backend`.
// UsageError when the figure is 0 or, on cuda, no device is visible.
MemoryBudget memory_budget(const std::optional<MemoryBudget>& mem_per_device, BackendKind backend,
                           const RankContext& ranks);

// The pre-allocation check: nullopt when the estimate fits the budget,
// otherwise one line (for a UsageError) naming the point, what it needs term
// by term, and what may be used:
//   "memory: TP-1 b=100000 c=100000 needs 5.96 TiB per rank (weights 29.9 GiB, KV cache ...), more than the
//    11.3 GiB available (CPU: ...); lower --batch or --context, raise --tp, or set --mem-per-device"
std::optional<std::string> check_fits(const MemoryEstimate& estimate, const MemoryBudget& budget);

// The estimator's terms as the KV ledger reads them: the weight shard, the
// other fixed bytes, the bytes per sequence, the KV bytes per token per device
// and the other bytes per token. With this line, admissible_sequences at
// blocks of one token is exactly the largest batch check_fits accepts (with
// the same budget, reserve 0).
DeviceMemoryLine ledger_line(const MemoryTerms& terms);

// The model's KV shape at `dtype` (every layer of the config as loaded).
KvCacheShape kv_cache_shape(const ModelConfig& config, ElementType dtype);

// "31.21 GiB": bytes to two decimals in the largest binary unit below them.
std::string readable_bytes(std::int64_t bytes);

}  // namespace tpb
