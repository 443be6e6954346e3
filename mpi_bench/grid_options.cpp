#include "mpi_bench/grid_options.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {

void add_grid_options(CLI::App& app, GridOptions& o) {
  app.add_option("--model", o.choice.model_path, "Hugging Face config.json (tp_decoder/configs/*.json)")->required();
  Grid& grid = o.choice.grid;
  add_int_list_option(app, "--tp", "--tp", grid.tp, 1, "TP degrees k, each dividing the number of ranks, e.g. 1,2,4");
  add_int_list_option(app, "--batch", "--batch", grid.batch, 1, "Batch sizes b (sequences decoded together)");
  add_int_list_option(app, "--context", "--context", grid.context, 0, "Context lengths c (KV history per sequence)");
  add_checked_option(app, "--backend", o.backend,
                     "Decoder backend: cpu or cuda (default: cuda when a GPU is visible, else cpu)",
                     [](const std::string& text) { return parse_backend_kind("--backend", text); });
  add_checked_option(app, "--collective", o.collective,
                     "Communicator: mpi, nccl or oneshot (default: the one working on the backend's memory, nccl for cuda)",
                     [](const std::string& text) { return parse_collective_kind("--collective", text); });
  add_count_option(app, "--layers", "--layers", o.choice.layers, 0,
                   "Run this many layers instead of the config's (0: all; recorded)");
  add_count_option(app, "-w,--warmup_iters", "-w/--warmup_iters", o.choice.warmup_iters, 0, "Untimed steps per point");
  add_count_option(app, "--warmup", "-w/--warmup_iters", o.choice.warmup_iters, 0, "")
      ->group("");  // the former spelling
  add_count_option(app, "-n,--iters", "-n/--iters", o.choice.iters, 1, "Timed steps per point");
  add_checked_option(app, "--mem-per-device", o.choice.mem_per_device,
                     "Memory one rank may use, e.g. 120G (default: MemAvailable or the cgroup limit shared by the "
                     "node's ranks on CPU, the device's free memory on CUDA); the grid's largest point must fit",
                     [](const std::string& text) { return mem_per_device_budget(text); });
  app.add_flag("--dry-run", o.choice.dry_run,
               "Print the grid and each rank's memory estimate against what it may use, then exit without allocating "
               "or writing");
}

GridChoice parse_grid_options(const GridOptions& o) {
  GridChoice c = o.choice;
  c.backend = o.backend.value_or(default_backend_kind());
  c.collective = o.collective.value_or(default_collective_kind(c.backend));
  return c;
}

void check_grid_fits_model(const ModelConfig& config, const std::vector<int>& tp, const std::vector<int>& contexts) {
  for (int k : tp)
    if (const std::string problem = shard_plan_problem(config, k); !problem.empty()) throw UsageError(problem);
  for (int c : contexts)
    if (c + 1 > config.max_position_embeddings)
      throw UsageError(fmt::format("--context: {} leaves no room for the decoded token within max_position_embeddings "
                                   "({}) of {}",
                                   c, config.max_position_embeddings, config.name));
}

}  // namespace tpb
