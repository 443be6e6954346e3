// Multi-rank: the study's step points on a backend that times operations
// asynchronously (the CUDA case, played by the CPU backend presenting itself
// as asynchronous). The timed iterations stay free of per-operation events,
// and the collective term is still measured, in separate profiled iterations.
#include <gtest/gtest.h>
#include <mpi.h>

#include "../tp_decoder/async_timing_backend.hpp"
#include "collectives/communicator_factory.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"

namespace tpb {
namespace {

StudyRuntime async_timing_runtime(test::AsyncTimingBackend** timing) {
  StudyRuntime rt;
  rt.ranks = bootstrap_ranks(MPI_COMM_WORLD, false);
  rt.declaration.model_path = TPB_TINY_CONFIG;
  rt.config = load_model_config(TPB_TINY_CONFIG);
  auto backend = std::make_unique<test::AsyncTimingBackend>(make_backend("cpu"));
  *timing = backend.get();
  rt.backend = std::move(backend);
  rt.world = make_communicator("mpi", MPI_COMM_WORLD);
  return rt;
}

TEST(StudyPoint, AsyncTimingBackendMeasuresTheCollectiveTermInProfiledIterations) {
  test::AsyncTimingBackend* timing = nullptr;
  StudyRuntime rt = async_timing_runtime(&timing);
  const int tp = rt.ranks.size;
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, tp);
  StepOptions options;
  options.warmup = 1;
  options.iters = 4;
  const StepPoint point{tp, 2, 8};

  // The timed iterations alone record no event and no collective time.
  const StepTerms timed = run_step_point(*rt.backend, group.get(), rt.config, point, options, &shard_weights_for(rt, point.tp, false));
  EXPECT_TRUE(timed.t_ar_insitu_us.empty());
  EXPECT_EQ(timing->events_recorded(), 0);

  const GatheredPoint gathered = run_point_everywhere(rt, group.get(), point, options);
  EXPECT_GT(timing->events_recorded(), 0);
  if (!rt.ranks.is_root()) return;
  const auto cells = static_cast<std::size_t>(options.iters * tp);
  EXPECT_EQ(gathered.group0.t_rank_us.size(), cells);
  ASSERT_EQ(gathered.group0.t_ar_insitu_us.size(), cells);
  ASSERT_EQ(gathered.group0.t_ag_insitu_us.size(), cells);
  for (double t : gathered.group0.t_ar_insitu_us) EXPECT_GT(t, 0.0);
  EXPECT_TRUE(gathered.attributes.collectives_profiled_separately);
}

TEST(StudyPoint, HostSynchronousBackendTimesTheCollectivesInTheTimedIterations) {
  StudyRuntime rt;
  rt.ranks = bootstrap_ranks(MPI_COMM_WORLD, false);
  rt.config = load_model_config(TPB_TINY_CONFIG);
  rt.backend = make_backend("cpu");
  rt.world = make_communicator("mpi", MPI_COMM_WORLD);
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, rt.ranks.size);
  StepOptions options;
  options.warmup = 0;
  options.iters = 3;
  const GatheredPoint gathered = run_point_everywhere(rt, group.get(), {rt.ranks.size, 1, 4}, options);
  if (!rt.ranks.is_root()) return;
  EXPECT_EQ(gathered.group0.t_ar_insitu_us.size(), static_cast<std::size_t>(3 * rt.ranks.size));
  EXPECT_FALSE(gathered.attributes.collectives_profiled_separately);
}

}  // namespace
}  // namespace tpb
