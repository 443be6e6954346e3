#include "mpi_bench/pipeline/study_rounds.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/round_visit.hpp"
#include "mpi_bench/watchdog.hpp"
#include "predictor/visit_order.hpp"
#include "results/round_records.hpp"
#include "results/step_point.hpp"

namespace tpb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The first round's TP-k points also go where single-pass readers look
// (/step, /step_nocomm k > 1, /control/concurrent): the anchors' points there
// are calibration's, sealed, and are never rewritten.
void write_first_round_point(ResultsFile& file, const RoundCondition& c, const GatheredPoint& point, int iters,
                             int ranks) {
  if (c.kind == RoundKind::step) {
    write_gathered_point(file, point);
    if (c.k == 1 && ranks >= 2)
      write_control_t_rank(file.h5(), ControlMode::concurrent, c.batch, c.context, point.all_ranks_t_rank_us, iters,
                           ranks);
  } else if (c.kind == RoundKind::step_nocomm && c.k > 1) {
    write_gathered_point(file, point);
  }
}

// TP-1 on each rank alone, once before the rounds, into /control/alone: beside
// the rounds' TP-1 on every rank at once, it tells device variance from
// contention between ranks. Descriptive: the decision's same-node gate reads
// the rounds.
void measure_ranks_alone(StudyRuntime& rt, ResultsFile* file, TpGroups& groups,
                         const std::vector<RoundCondition>& conditions, const ShardResidency& residency,
                         const StepOptions& options) {
  for (int b : rt.declaration.grid.batch)
    for (int c : rt.declaration.grid.context) {
      study_progress(rt, fmt::format("measure: same-node control, TP-1 on each rank alone b={} c={}", b, c));
      release_unplanned_shards(rt, residency, conditions, {RoundKind::step, 1, b, c});
      const std::vector<double> alone = run_point_each_rank_alone(rt, *groups.at(1), {1, b, c}, options);
      if (file)
        write_control_t_rank(file->h5(), ControlMode::alone, b, c, alone, options.iters, rt.ranks.size);
    }
}

// Rank 0 at the end of a round: whether the time budget ends the study
// before its declared rounds, and why. The design is fixed: nothing the
// rounds show can stop it, so no look is taken here; the verdict judges the
// rounds once, at the end.
std::string budget_stop_reason(const RoundsDesign& design, int done, double elapsed_s) {
  if (done >= design.rounds || design.time_budget_s <= 0) return "";
  const double projected_s = elapsed_s / done * (done + 1);
  if (projected_s <= design.time_budget_s) return "";
  return fmt::format("time budget: round {} would end about {:.0f} s into the {:.0f} s budget, so {} of the {} "
                     "declared rounds ran",
                     done + 1, projected_s, design.time_budget_s, done, design.rounds);
}

}  // namespace

std::vector<int> round_group_degrees(const std::vector<int>& grid_tp) {
  std::vector<int> degrees = grid_tp;
  degrees.push_back(1);
  std::sort(degrees.begin(), degrees.end());
  degrees.erase(std::unique(degrees.begin(), degrees.end()), degrees.end());
  return degrees;
}

void run_study_rounds(StudyRuntime& rt, ResultsFile* file, const Registration* registration) {
  const StudyDeclaration& d = rt.declaration;
  RoundsDesign design;
  if (registration) design = registration->design;
  std::uint64_t seed = design.order_seed;
  int max_rounds = design.rounds;
  MPI_CHECK(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
  MPI_CHECK(MPI_Bcast(&max_rounds, 1, MPI_INT, 0, MPI_COMM_WORLD));

  const int ranks = rt.ranks.size;
  const std::vector<RoundCondition> conditions = round_conditions(d.grid);
  const ShardResidency residency = plan_shard_residency(rt, conditions);
  study_progress(rt, residency_line("measure", residency, rt.memory.budget));
  const std::vector<std::vector<std::size_t>> orders =
      residency_visit_orders(residency, conditions.size(), max_rounds, seed);
  TpGroups groups;
  for (int k : round_group_degrees(d.grid.tp)) groups[k] = split_into_tp_groups(*rt.world, k);
  const StepOptions options{.warmup = d.warmup_iters, .iters = d.iters};

  RoundRecords records = start_round_records(RoundsPhase::measure, conditions, residency, seed, d.iters, ranks);
  if (ranks >= 2) measure_ranks_alone(rt, file, groups, conditions, residency, options);
  const Clock::time_point start = Clock::now();
  int execution_index = 0;
  for (int round = 0; round < max_rounds; ++round) {
    study_progress(rt, fmt::format("measure: round {} of {} ({} visits)", round + 1, max_rounds,
                                   conditions.size()));
    for (std::size_t index : orders[static_cast<std::size_t>(round)]) {
      const RoundCondition& c = conditions[index];
      report_progress("study", fmt::format("round {} {}", round + 1, round_condition_name(c)));
      // Only the first round's points go to /step, with their in-situ
      // collective times; later rounds skip the further profiled pass a
      // backend that cannot time its timed iterations per operation needs,
      // and keep what the timed iterations recorded (/rounds).
      const GatheredPoint visit =
          run_round_visit(rt, groups, conditions, residency, options,
                          round == 0 ? InSituCollectives::measure : InSituCollectives::skip,
                          {index, round, execution_index}, file ? &records : nullptr);
      if (file && round == 0) write_first_round_point(*file, c, visit, d.iters, ranks);
      ++execution_index;
    }
    int stop = 0;
    validate_collectively(MPI_COMM_WORLD, [&] {
      if (!file) return;
      records.order.push_back(orders[static_cast<std::size_t>(round)]);
      records.stop_reason = budget_stop_reason(design, static_cast<int>(records.order.size()), seconds_since(start));
      stop = records.stop_reason.empty() ? 0 : 1;
      write_round_records(file->h5(), records);
      file->flush();  // a killed study keeps every finished round
    });
    MPI_CHECK(MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (stop) break;
  }
  if (file)
    study_progress(rt, fmt::format("measure: {} rounds in {:.1f} s{}", records.order.size(), seconds_since(start),
                                   records.stop_reason.empty() ? "" : "; ended early by the " + records.stop_reason));
}

}  // namespace tpb
