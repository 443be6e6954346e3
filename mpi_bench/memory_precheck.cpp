#include "mpi_bench/memory_precheck.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"

namespace tpb {

MemoryPlan check_grid_memory(const ModelConfig& config, const GridChoice& choice, MemorySetup setup,
                             const RankContext& ranks) {
  MemoryPlan plan;
  plan.largest = largest_grid_estimate(config, setup, choice.grid.tp, choice.grid.batch, choice.grid.context);
  plan.budget = memory_budget(choice.mem_per_device, choice.backend, ranks);
  if (const auto problem = check_fits(plan.largest, plan.budget)) throw UsageError(*problem);
  return plan;
}

bool finish_dry_run(const std::string& command, const RankContext& ranks, const ModelConfig& config,
                    const GridChoice& choice, const MemoryPlan& plan) {
  if (!choice.dry_run || !ranks.is_root()) return choice.dry_run;
  const MemoryEstimate& e = plan.largest;
  fmt::print("# {} --dry-run: {} ({} layers of {}), backend {}, collective {}\n", command, config.name,
             config.num_layers, config.num_layers_in_file, to_string(choice.backend), to_string(choice.collective));
  fmt::print("# grid: tp {}, batch {}, context {}; warmup {} iters {}\n", fmt::join(choice.grid.tp, ","),
             fmt::join(choice.grid.batch, ","), fmt::join(choice.grid.context, ","), choice.warmup_iters, choice.iters);
  fmt::print("# largest point per rank: TP-{} b={} c={}: {} (weights {}, KV cache {}, activations {}, workspaces {}, "
             "communication buffers {})\n",
             e.tp, e.batch, e.context, readable_bytes(e.total()), readable_bytes(e.weights), readable_bytes(e.kv_cache),
             readable_bytes(e.activations), readable_bytes(e.workspaces), readable_bytes(e.comm_buffers));
  fmt::print("# may use per rank: {} ({}): fits, {} to spare; nothing was allocated or written\n",
             readable_bytes(plan.budget.bytes), plan.budget.source, readable_bytes(plan.budget.bytes - e.total()));
  return true;
}

}  // namespace tpb
