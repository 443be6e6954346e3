#include "collectives/tp_sweep.hpp"

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/mpi_communicator.hpp"

namespace tpb {
namespace {

// A group's samples at one size out of the world's [iteration][world rank] block.
std::vector<double> group_columns(const double* block, int iters, int world_size, int first_rank, int k) {
  std::vector<double> columns;
  columns.reserve(static_cast<std::size_t>(iters * k));
  for (int i = 0; i < iters; ++i)
    for (int r = first_rank; r < first_rank + k; ++r) columns.push_back(block[i * world_size + r]);
  return columns;
}

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

// [rank][size][iteration] on rank 0 -> [size][iteration][rank].
std::vector<double> gather_to_root(MPI_Comm world, const std::vector<double>& mine, int n_sizes, int iters,
                                   int world_size, int world_rank) {
  std::vector<double> by_rank(world_rank == 0 ? mine.size() * static_cast<std::size_t>(world_size) : 0);
  MPI_CHECK(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, by_rank.data(),
                       static_cast<int>(mine.size()), MPI_DOUBLE, 0, world));
  std::vector<double> by_size(by_rank.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(world_size) && world_rank == 0; ++r)
    for (std::size_t s = 0; s < static_cast<std::size_t>(n_sizes); ++s)
      for (std::size_t i = 0; i < static_cast<std::size_t>(iters); ++i)
        by_size[(s * iters + i) * world_size + r] = by_rank[(r * n_sizes + s) * iters + i];
  return by_size;
}

std::vector<std::int64_t> gather_wrong(MPI_Comm world, const SweepResult& result, int group_rank, bool in_place,
                                       int world_size, int world_rank) {
  std::vector<std::int64_t> mine;
  for (const SweepPoint& point : result.points)
    mine.push_back((in_place ? point.wrong_inplace : point.wrong)[static_cast<std::size_t>(group_rank)]);
  const std::size_t n_sizes = mine.size();
  std::vector<std::int64_t> by_rank(world_rank == 0 ? n_sizes * static_cast<std::size_t>(world_size) : 0);
  MPI_CHECK(MPI_Gather(mine.data(), static_cast<int>(n_sizes), MPI_INT64_T, by_rank.data(), static_cast<int>(n_sizes),
                       MPI_INT64_T, 0, world));
  std::vector<std::int64_t> by_size(by_rank.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(world_size) && world_rank == 0; ++r)
    for (std::size_t s = 0; s < n_sizes; ++s) by_size[s * world_size + r] = by_rank[r * n_sizes + s];
  return by_size;
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
            group_columns(samples.data() + s * block, tp.iters, tp.world_size, g * tp.k, tp.k), tp.k, tp.bytes[s],
            tp.bus_factor);
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

std::vector<std::int64_t> total_wrong(MPI_Comm world, const SweepResult& result, int group_rank, bool in_place) {
  std::vector<std::int64_t> mine;
  for (const SweepPoint& point : result.points)
    mine.push_back((in_place ? point.wrong_inplace : point.wrong)[static_cast<std::size_t>(group_rank)]);
  std::vector<std::int64_t> total(mine.size());
  MPI_CHECK(MPI_Allreduce(mine.data(), total.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, world));
  return total;
}

}  // namespace

std::vector<double> TpSweep::median_times_us() const {
  std::vector<double> times;
  for (const PointSummary& summary : out_of_place) times.push_back(summary.time_us);
  return times;
}

TpSweep run_tp_sweep(Communicator& world, int k, const CollectiveSpec& spec, const SweepOptions& options) {
  const std::unique_ptr<Communicator> group = split_into_tp_groups(world, k);
  const SweepResult result = run_collective_sweep(*group, spec, options);
  const MPI_Comm world_comm = mpi_comm_of(world);
  const int world_rank = world.rank();

  TpSweep tp;
  tp.operation = spec.name;
  tp.hdf5_group = spec.hdf5_group;
  tp.backend = result.backend;
  tp.type = result.type;
  tp.k = k;
  tp.world_size = world.size();
  tp.n_groups = world.size() / k;
  tp.iters = result.iters;
  tp.bus_factor = result.bus_factor;
  for (const SweepPoint& point : result.points) {
    tp.bytes.push_back(point.bytes);
    tp.counts.push_back(point.count);
  }
  const int n_sizes = static_cast<int>(tp.bytes.size());
  const int group_rank = group->rank();
  tp.time_us = gather_to_root(world_comm, own_samples(result, group_rank, false), n_sizes, tp.iters, tp.world_size,
                              world_rank);
  tp.time_inplace_us = gather_to_root(world_comm, own_samples(result, group_rank, true), n_sizes, tp.iters,
                                      tp.world_size, world_rank);
  tp.wrong_per_rank = gather_wrong(world_comm, result, group_rank, false, tp.world_size, world_rank);
  tp.wrong_inplace_per_rank = gather_wrong(world_comm, result, group_rank, true, tp.world_size, world_rank);
  tp.wrong = total_wrong(world_comm, result, group_rank, false);
  tp.wrong_inplace = total_wrong(world_comm, result, group_rank, true);
  pick_slowest_groups(tp, tp.time_us, false, world_comm, world_rank);
  pick_slowest_groups(tp, tp.time_inplace_us, true, world_comm, world_rank);
  return tp;
}

}  // namespace tpb
