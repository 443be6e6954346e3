// Runs one point of the decode step in this process, as `mpi_bench step`
// does (run_step_point on the cpu backend with an MPI group of every rank of
// the launch: TP-k with k the launch's size), and compares the memory
// estimator with the peak resident memory the kernel measured (VmHWM in
// /proc/self/status). Each rank prints its own line.
//
//   mpiexec -n K step_peak_memory CONFIG LAYERS BATCH CONTEXT
//
// The estimate counts what the step allocates; the process held VmRSS before
// the first allocation (MPI, OpenBLAS, the CUDA libraries' data), so two
// comparisons are made: VmHWM against the resident memory before the step
// plus the estimate, and the estimate against the growth VmHWM − VmRSS before
// (the sharper one: at a small point the runtime is a large part of VmHWM).
// Exit 0 when both are within kToleranceFraction, 1 otherwise, 2 on bad
// arguments, 77 (skipped) in a build under AddressSanitizer, whose shadow
// memory and redzones are not the product's footprint.
#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>

#include "collectives/communicator_factory.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "mpi_bench/rank_context.hpp"
#include "process_memory.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/step_runner.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPB_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TPB_UNDER_ASAN 1
#endif

namespace {

// The acceptance bound of the estimator against the measured peak.
constexpr double kToleranceFraction = 0.15;

int run(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: step_peak_memory CONFIG LAYERS BATCH CONTEXT\n");
    return 2;
  }
  tpb::ModelConfig config = tpb::with_layers(tpb::load_model_config(argv[1]), std::atoi(argv[2]));
  const std::unique_ptr<tpb::Backend> backend = tpb::make_backend(tpb::BackendKind::cpu);
  const std::unique_ptr<tpb::Communicator> group = tpb::make_communicator("mpi", MPI_COMM_WORLD);
  const tpb::StepPoint point{group->size(), std::atoi(argv[3]), std::atoi(argv[4])};
  const tpb::MemorySetup setup{tpb::BackendKind::cpu, tpb::CollectiveKind::mpi, tpb::backend_memory_types(tpb::BackendKind::cpu), point.tp, false};
  const tpb::MemoryEstimate estimate = tpb::estimate_rank_memory(config, setup, point.batch, point.context);

  const auto before = static_cast<std::int64_t>(tpb::test::resident_bytes());
  tpb::StepOptions options;
  options.warmup = 1;
  options.iters = 3;
  tpb::run_step_point(*backend, group.get(), config, point, options);
  const auto peak = static_cast<std::int64_t>(tpb::test::peak_resident_bytes());

  const std::int64_t predicted = before + estimate.total();
  const double error = static_cast<double>(predicted - peak) / static_cast<double>(peak);
  const std::int64_t growth = peak - before;
  const double growth_error = static_cast<double>(estimate.total() - growth) / static_cast<double>(growth);
  fmt::print("rank {} of TP-{}: {} layers={} b={} c={}: estimate {} B ({}: weights {}, KV cache {}, activations {}, workspaces {}, "
             "communication buffers {}); VmRSS before the step {} B; VmHWM {} B ({}); "
             "VmRSS before + estimate = {} B, {:+.1f} % of VmHWM (bound ±{:.0f} %); "
             "estimate against the growth VmHWM - VmRSS before ({} B): {:+.1f} % (bound ±15 %)\n",
             group->rank(), point.tp, config.name, config.num_layers, point.batch, point.context, estimate.total(),
             tpb::readable_bytes(estimate.total()), tpb::readable_bytes(estimate.weights),
             tpb::readable_bytes(estimate.kv_cache), tpb::readable_bytes(estimate.activations),
             tpb::readable_bytes(estimate.workspaces), tpb::readable_bytes(estimate.comm_buffers), before, peak,
             tpb::readable_bytes(peak), predicted, 100 * error, 100 * kToleranceFraction, growth, 100 * growth_error);
  return std::fabs(error) <= kToleranceFraction && std::fabs(growth_error) <= kToleranceFraction ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef TPB_UNDER_ASAN
  std::printf("skipped: under AddressSanitizer the resident memory is not the product's (shadow memory, redzones)\n");
  return 77;
#endif
  tpb::MpiSession mpi(argc, argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "step_peak_memory: %s\n", error.what());
    return 2;
  }
}
