#include "collectives/tp_sweep.hpp"

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/sample_gather.hpp"
#include "common/samples.hpp"

namespace tpb {
namespace {

// This rank's own samples from the group result, [size][iteration].
std::vector<double> own_samples(const SweepResult& result, int group_rank, bool in_place) {
  std::vector<double> mine;
  for (const SweepPoint& point : result.points) {
    const std::vector<double>& samples = in_place ? point.time_inplace_us : point.time_us;
    for (int i = 0; i < result.iters; ++i)
      mine.push_back(samples[static_cast<std::size_t>(i * result.group_size + group_rank)]);
  }
  return mine;
}

// The slowest group at every size (rank 0), then shared with every rank.
void pick_slowest_groups(TpSweep& tp, const std::vector<double>& samples, bool in_place, MPI_Comm world,
                         int world_rank) {
  const std::size_t n_sizes = tp.bytes.size();
  std::vector<PointSummary> summaries(n_sizes);
  std::vector<int> slowest(n_sizes, 0);
  if (world_rank == 0) {
    const std::size_t block = static_cast<std::size_t>(tp.iters * tp.world_size);
    for (std::size_t s = 0; s < n_sizes; ++s)
      for (int g = 0; g < tp.n_groups; ++g) {
        const PointSummary candidate = summarize_times(
            select_columns(std::span(samples).subspan(s * block, block), static_cast<std::size_t>(tp.world_size),
                           static_cast<std::size_t>(g * tp.k), static_cast<std::size_t>(tp.k)),
            tp.k, tp.bytes[s], tp.bus_factor);
        if (g == 0 || candidate.time_us > summaries[s].time_us) {
          summaries[s] = candidate;
          slowest[s] = g;
        }
      }
  }
  static_assert(sizeof(PointSummary) == 6 * sizeof(double), "PointSummary travels as 6 doubles");
  MPI_CHECK(MPI_Bcast(summaries.data(), static_cast<int>(n_sizes * 6), MPI_DOUBLE, 0, world));
  MPI_CHECK(MPI_Bcast(slowest.data(), static_cast<int>(n_sizes), MPI_INT, 0, world));
  (in_place ? tp.in_place : tp.out_of_place) = std::move(summaries);
  (in_place ? tp.slowest_group_inplace : tp.slowest_group) = std::move(slowest);
}

// This rank's wrong elements, one per size.
std::vector<std::int64_t> own_wrong(const SweepResult& result, int group_rank, bool in_place) {
  std::vector<std::int64_t> mine;
  for (const SweepPoint& point : result.points)
    mine.push_back((in_place ? point.wrong_inplace : point.wrong)[static_cast<std::size_t>(group_rank)]);
  return mine;
}

std::vector<std::int64_t> total_wrong(MPI_Comm world, const SweepResult& result, int group_rank, bool in_place) {
  const std::vector<std::int64_t> mine = own_wrong(result, group_rank, in_place);
  std::vector<std::int64_t> total(mine.size());
  MPI_CHECK(MPI_Allreduce(mine.data(), total.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, world));
  return total;
}

}  // namespace

TpSweep run_tp_sweep(Communicator& world, int k, const CollectiveSpec& spec, const SweepOptions& options) {
  const std::unique_ptr<Communicator> group = split_into_tp_groups(world, k);
  const SweepResult result = run_collective_sweep(*group, spec, options);
  const MPI_Comm world_comm = mpi_comm_of(world);
  const int world_rank = world.rank();

  TpSweep tp;
  static_cast<SweepHeader&>(tp) = result;  // timing_overhead_us: replaced by the largest over groups below
  tp.k = k;
  tp.world_size = world.size();
  tp.n_groups = world.size() / k;
  MPI_CHECK(MPI_Allreduce(&result.timing_overhead_us, &tp.timing_overhead_us, 1, MPI_DOUBLE, MPI_MAX, world_comm));
  for (const SweepPoint& point : result.points) {
    tp.bytes.push_back(point.bytes);
    tp.counts.push_back(point.count);
  }
  const int group_rank = group->rank();
  // [size][iteration] per rank -> [size][iteration][world rank] on world rank 0.
  tp.time_us = gather_by_iteration(world_comm, own_samples(result, group_rank, false));
  tp.time_inplace_us = gather_by_iteration(world_comm, own_samples(result, group_rank, true));
  tp.wrong_per_rank = gather_by_iteration(world_comm, own_wrong(result, group_rank, false));
  tp.wrong_inplace_per_rank = gather_by_iteration(world_comm, own_wrong(result, group_rank, true));
  tp.wrong = total_wrong(world_comm, result, group_rank, false);
  tp.wrong_inplace = total_wrong(world_comm, result, group_rank, true);
  pick_slowest_groups(tp, tp.time_us, false, world_comm, world_rank);
  pick_slowest_groups(tp, tp.time_inplace_us, true, world_comm, world_rank);
  return tp;
}

}  // namespace tpb
