// Multi-rank: the study's step points on a backend that times operations
// asynchronously (the CUDA case, played by the CPU backend presenting itself
// as asynchronous). The timed iterations stay free of per-operation events,
// and the collective term is still measured, in separate profiled iterations.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "../tp_decoder/async_timing_backend.hpp"
#include "../tp_decoder/delegating_backend.hpp"
#include "collectives/communicator_factory.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"
#include "results/layout.hpp"
#include "results/results_file.hpp"

namespace tpb {
namespace {

// A study runtime over MPI_COMM_WORLD on `backend`, with the tiny config.
StudyRuntime runtime_on(std::unique_ptr<Backend> backend) {
  StudyRuntime rt;
  rt.ranks = bootstrap_ranks(MPI_COMM_WORLD, false);
  rt.declaration.model_path = TPB_TINY_CONFIG;
  rt.config = load_model_config(TPB_TINY_CONFIG);
  rt.backend = std::move(backend);
  rt.world = make_communicator("mpi", MPI_COMM_WORLD);
  return rt;
}

// Options with no untimed steps and `iters` timed ones.
StepOptions timed_only(int iters) {
  StepOptions options;
  options.warmup = 0;
  options.iters = iters;
  return options;
}

// Counts decode steps: each one embeds its input tokens once.
class StepCountingBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  int steps() const { return steps_; }
  void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) override {
    ++steps_;
    DelegatingBackend::embedding(out, table, tokens);
  }

 private:
  int steps_ = 0;
};

StudyRuntime async_timing_runtime(test::AsyncTimingBackend** timing) {
  auto backend = std::make_unique<test::AsyncTimingBackend>(make_backend("cpu"));
  *timing = backend.get();
  return runtime_on(std::move(backend));
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
  const StepTerms timed =
      run_step_point(*rt.backend, group.get(), rt.config, point, options, &shard_cache_for(rt, point.tp, false).weights);
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
  StudyRuntime rt = runtime_on(make_backend("cpu"));
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, rt.ranks.size);
  const StepOptions options = timed_only(3);
  const GatheredPoint gathered = run_point_everywhere(rt, group.get(), {rt.ranks.size, 1, 4}, options);
  if (!rt.ranks.is_root()) return;
  EXPECT_EQ(gathered.group0.t_ar_insitu_us.size(), static_cast<std::size_t>(3 * rt.ranks.size));
  EXPECT_FALSE(gathered.attributes.collectives_profiled_separately);
}

// A visit keeps each rank's time inside the collectives (all-reduces plus
// all-gather, per iteration and world rank) where the timed iterations
// recorded it, and leaves it empty where they did not.
TEST(StudyPoint, CollectiveTimeOfEveryRankComesFromTheTimedIterationsOnly) {
  StudyRuntime rt = runtime_on(make_backend("cpu"));
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, rt.ranks.size);
  const StepOptions options = timed_only(3);
  const GatheredPoint gathered = run_point_everywhere(rt, group.get(), {rt.ranks.size, 1, 4}, options,
                                                      InSituCollectives::skip);
  if (rt.ranks.is_root()) {
    ASSERT_EQ(gathered.all_ranks_collective_us.size(), static_cast<std::size_t>(3 * rt.ranks.size));
    // Group 0 is every rank here: its columns are the world's.
    for (std::size_t i = 0; i < gathered.all_ranks_collective_us.size(); ++i)
      EXPECT_DOUBLE_EQ(gathered.all_ranks_collective_us[i],
                       gathered.group0.t_ar_insitu_us[i] + gathered.group0.t_ag_insitu_us[i]);
  }

  test::AsyncTimingBackend* timing = nullptr;
  StudyRuntime async = async_timing_runtime(&timing);
  const std::unique_ptr<Communicator> async_group = split_into_tp_groups(*async.world, async.ranks.size);
  const GatheredPoint profiled = run_point_everywhere(async, async_group.get(), {async.ranks.size, 1, 4}, options);
  if (!async.ranks.is_root()) return;
  EXPECT_TRUE(profiled.attributes.collectives_profiled_separately);
  EXPECT_TRUE(profiled.all_ranks_collective_us.empty());  // not in the timed iterations: not measured there
}

// With -w 0 -n 1, a revisit of a point whose state is kept runs its one timed
// step and nothing else; the first visit, or a visit that rebuilds its state,
// first runs one untimed step. The kept state still passes the TP-k ≡ TP-1 check.
TEST(StudyPoint, AKeptPointStateMakesARevisitOneTimedStep) {
  auto backend = std::make_unique<StepCountingBackend>(make_backend("cpu"));
  StepCountingBackend* counting = backend.get();
  StudyRuntime rt = runtime_on(std::move(backend));
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, rt.ranks.size);
  const StepOptions options = timed_only(1);
  const StepPoint point{rt.ranks.size, 2, 8};
  const auto steps_of_visit = [&](PointState state, const StepOptions& o) {
    const int before = counting->steps();
    const GatheredPoint visit = run_point_everywhere(rt, group.get(), point, o, InSituCollectives::skip, state);
    if (rt.ranks.is_root()) {
      EXPECT_EQ(visit.group0.t_rank_us.size(), static_cast<std::size_t>(rt.ranks.size));
    }
    return counting->steps() - before;
  };
  EXPECT_EQ(steps_of_visit(PointState::rebuilt, options), 2);
  EXPECT_EQ(steps_of_visit(PointState::rebuilt, options), 2);
  EXPECT_EQ(steps_of_visit(PointState::kept, options), 2);
  EXPECT_EQ(steps_of_visit(PointState::kept, options), 1);
  StepOptions no_comm = options;
  no_comm.no_comm = true;  // the same state, another timeline: its first step is untimed
  EXPECT_EQ(steps_of_visit(PointState::kept, no_comm), 2);
  EXPECT_EQ(steps_of_visit(PointState::kept, no_comm), 1);
  EXPECT_EQ(steps_of_visit(PointState::kept, options), 1);

  StepOptions checked = options;
  checked.check = true;
  ShardCache& shard = shard_cache_for(rt, point.tp, false);
  const StepTerms terms = run_step_point(*rt.backend, group.get(), rt.config, point, checked, &shard.weights,
                                         &shard.states);
  EXPECT_TRUE(terms.check.failure.empty()) << terms.check.failure;
  if (group->rank() == 0 && point.tp > 1) {
    EXPECT_TRUE(terms.check.compared);
  }
}

// A study point as written: t_step_us holds, per iteration, the slowest rank
// of each group it stores (iterations × groups), and t_rank_us each rank's own
// time (iterations × ranks); the world gather keeps one column per rank.
TEST(StudyPoint, TStepIsTheMaximumOfTRankOverEachGroup) {
  StudyRuntime rt = runtime_on(make_backend("cpu"));
  const int tp = rt.ranks.size % 2 == 0 ? 2 : 1;  // 4 ranks: two TP-2 groups
  const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, tp);
  const StepOptions options = timed_only(3);
  const GatheredPoint gathered = run_point_everywhere(rt, group.get(), {tp, 1, 4}, options);
  if (!rt.ranks.is_root()) return;
  EXPECT_EQ(gathered.all_ranks_t_rank_us.size(), static_cast<std::size_t>(options.iters * rt.ranks.size));

  const std::string path =
      (std::filesystem::temp_directory_path() / ("tpb_study_point_" + std::to_string(getpid()) + ".h5")).string();
  {
    ResultsFile file(path, true, RunMeta{});
    write_gathered_point(file, gathered);
  }
  const H5File file(path, H5Mode::read_only);
  std::vector<std::uint64_t> step_dims, rank_dims;
  const std::vector<double> t_step = file.read_doubles(step_dataset_path(gathered.path, step_dataset::t_step_us), &step_dims);
  const std::vector<double> t_rank = file.read_doubles(step_dataset_path(gathered.path, step_dataset::t_rank_us), &rank_dims);
  EXPECT_EQ(step_dims, (std::vector<std::uint64_t>{3, 1}));   // group 0, the group the study stores
  ASSERT_EQ(rank_dims, (std::vector<std::uint64_t>{3, static_cast<std::uint64_t>(tp)}));
  for (std::size_t i = 0; i < 3; ++i) {
    const auto row = t_rank.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(tp));
    EXPECT_EQ(t_step[i], *std::max_element(row, row + tp)) << "iteration " << i;
    // The world gather's first tp columns are group 0's ranks.
    const auto world_row = gathered.all_ranks_t_rank_us.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(rt.ranks.size));
    EXPECT_TRUE(std::equal(row, row + tp, world_row)) << "iteration " << i;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tpb
