#include "mpi_bench/grid_options.hpp"

#include "common/parse.hpp"

namespace tpb {

void add_grid_options(CLI::App& app, GridOptions& o) {
  app.add_option("--model", o.model, "Hugging Face config.json (tp_decoder/configs/*.json)")->required();
  app.add_option("--tp", o.tp, "TP degrees k, each dividing the number of ranks, e.g. 1,2,4")->capture_default_str();
  app.add_option("--batch", o.batch, "Batch sizes b (sequences decoded together)")->capture_default_str();
  app.add_option("--context", o.context, "Context lengths c (KV history per sequence)")->capture_default_str();
  app.add_option("--backend", o.backend, "Decoder backend: cpu or cuda (default: cuda when a GPU is visible, else cpu)");
  app.add_option("--collective", o.collective,
                 "Communicator: mpi, nccl or oneshot (default: the one working on the backend's memory, nccl for cuda)");
  app.add_option("--layers", o.layers, "Run this many layers instead of the config's (0: all; recorded)")
      ->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmup, "Untimed steps per point")->capture_default_str();
  app.add_option("--warmup", o.warmup)->group("");  // the former spelling
  app.add_option("-n,--iters", o.iters, "Timed steps per point")->capture_default_str();
  app.add_option("--mem-per-device", o.mem_per_device,
                 "Memory one rank may use, e.g. 120G (default: MemAvailable or the cgroup limit shared by the "
                 "node's ranks on CPU, the device's free memory on CUDA); the grid's largest point must fit");
  app.add_flag("--dry-run", o.dry_run, "Print the grid and each rank's memory estimate against what it may use, "
                                       "then exit without allocating or writing");
}

GridChoice parse_grid_options(const GridOptions& o) {
  GridChoice c;
  c.model_path = o.model;
  c.grid = {parse_int_list("--tp", o.tp, 1), parse_int_list("--batch", o.batch, 1),
            parse_int_list("--context", o.context, 0)};
  c.backend = o.backend.empty() ? default_backend_kind() : parse_backend_kind("--backend", o.backend);
  c.collective =
      o.collective.empty() ? default_collective_kind(c.backend) : parse_collective_kind("--collective", o.collective);
  c.layers = static_cast<int>(parse_integer("--layers", o.layers, 0));
  c.warmup_iters = static_cast<int>(parse_integer("-w/--warmup_iters", o.warmup, 0));
  c.iters = static_cast<int>(parse_integer("-n/--iters", o.iters, o.min_iters));
  c.mem_per_device = o.mem_per_device;
  c.dry_run = o.dry_run;
  return c;
}

}  // namespace tpb
