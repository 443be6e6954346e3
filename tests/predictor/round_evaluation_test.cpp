// evaluate_rounds on a tiny hand-built study: k {1, 2} × batch 1 × context
// 256 on the CPU backend, 2 ranks, 35 rounds (7 blocks of 5).
//   t_compute(1) = 1000 µs on rank 0 and 1100 µs on rank 1 (rank 1 slower);
//   the TP-2 shard replay 500 and 550 µs; the collective term 50 µs at k = 2;
//   the TP-2 step waits for rank 1: 550 + 50 = 600 µs, times (1 + j/100),
//   j = −2..2 within every block, so each block's median is 600 µs.
// Priced on the group's slowest rank, `ideal` k = 2 predicts 1100/2 + 50 =
// 600 µs (error 0) where rank 0 alone would give 550 (+9.1 %). k = 1 carries
// no collective: `ideal` predicts rank 0's 1000 µs for its own TP-1 step.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "verdict_lookup.hpp"
#include "predictor/study_design.hpp"

namespace tpb {
namespace {

constexpr int kRounds = 35;

Registration tiny_registration() {
  Registration r;
  r.workload.backend = "cpu";
  r.grid = {{1, 2}, {1}, {256}};
  r.kill_switches = kill_switch_table(15.0);
  for (int k : r.grid.tp) {
    CellInputs cell;
    cell.batch = 1;
    cell.context = 256;
    // Sealed at calibration on rank 0's times; the rounds re-price them.
    const double replay = k == 1 ? 1000.0 : 500.0;
    cell.inputs = {.k = k, .t_compute1_us = 1000.0, .t_host_us = replay, .t_replay_us = replay,
                   .n_ar = k == 1 ? 0 : 1, .t_ar_sweep_us = k == 1 ? 0.0 : 50.0, .n_ag = 0, .t_ag_sweep_us = 0.0};
    r.calibration.push_back(cell);
  }
  r.predictions = predict_all(r.calibration);
  r.design = make_rounds_design(kRounds, 0.0, 1, 15.0);
  return r;
}

// One round; `aa_rank1` scales rank 1's TP-1 step (1: it reproduces itself).
RoundObservation round_at(int round, double aa_rank1 = 1.0) {
  RoundObservation o;
  const double wobble = 1.0 + ((round % 5) - 2) / 100.0;
  o.step_us[{1, 1, 256}] = 1000.0;  // group 0 at k = 1: rank 0
  o.step1_rank_us[{1, 256}] = {1000.0, 1100.0 * aa_rank1};
  o.compute1_rank_us[{1, 256}] = {1000.0, 1100.0};
  o.host_rank_us[{1, 1, 256}] = {1000.0, 1100.0};
  o.step_us[{2, 1, 256}] = 600.0 * wobble;
  o.replay_rank_us[{2, 1, 256}] = o.host_rank_us[{2, 1, 256}] = {500.0, 550.0};
  o.nocomm_rank_us[{2, 1, 256}] = {500.0, 550.0};
  // Rank 0 waits 50 µs longer inside the collectives: rank 1 arrived later.
  o.rank_collective_us[{2, 1, 256}] = {100.0, 50.0};
  return o;
}

std::vector<RoundObservation> rounds_of(double aa_rank1 = 1.0, int count = kRounds) {
  std::vector<RoundObservation> rounds;
  for (int r = 0; r < count; ++r) rounds.push_back(round_at(r, aa_rank1));
  return rounds;
}

TEST(GroupMax, TheSlowestOfTheFirstKRanks) {
  EXPECT_EQ(group_max({1.0, 5.0, 3.0}, 1), 1.0);
  EXPECT_EQ(group_max({1.0, 5.0, 3.0}, 2), 5.0);
  EXPECT_THROW(group_max({1.0}, 2), Error);
}

TEST(PairedInputs, AnchorsAreTheGroupsSlowestRankAndKOneHasNoCollective) {
  const Registration r = tiny_registration();
  const RoundObservation round = round_at(0);
  const FormInputs two = paired_inputs(find_cell_inputs(r, 2, 1, 256), round);
  EXPECT_EQ(two.t_compute1_us, 1100.0);
  EXPECT_EQ(two.t_replay_us, 550.0);
  EXPECT_EQ(two.t_host_us, 550.0);
  EXPECT_EQ(predict_ideal(two).t_step_us, 600.0);
  EXPECT_EQ(predict_replay(two).t_step_us, 600.0);
  const FormInputs one = paired_inputs(find_cell_inputs(r, 1, 1, 256), round);
  EXPECT_EQ(one.t_compute1_us, 1000.0);  // group 0 at k = 1 is rank 0 alone
  EXPECT_EQ(one.t_replay_us, 1000.0);
  EXPECT_EQ(collective_term_us(one), 0.0);
  EXPECT_EQ(predict_ideal(one).t_step_us, 1000.0);
  RoundObservation missing = round;
  missing.replay_rank_us.clear();
  EXPECT_THROW(paired_inputs(find_cell_inputs(r, 2, 1, 256), missing), Error);
}

TEST(EvaluateRounds, HandBuiltStudy) {
  const Registration r = tiny_registration();
  const RoundsEvaluation e = evaluate_rounds(r, rounds_of());
  EXPECT_EQ(e.rounds, kRounds);
  EXPECT_EQ(e.blocks, 7);
  EXPECT_EQ(e.family_cells, 2);  // m: k {1, 2} × 1 batch × 1 context
  ASSERT_EQ(e.aa.cells.size(), 2u);  // one cell per rank
  EXPECT_TRUE(e.aa.holds);

  const FormKVerdict& ideal2 = find_verdict(e, "ideal", 2);
  EXPECT_EQ(ideal2.outcome, Outcome::holds);
  ASSERT_EQ(ideal2.judged.cells.size(), 1u);
  EXPECT_NEAR(ideal2.judged.cells[0].error_pct, 0.0, 1e-9);
  EXPECT_NEAR(ideal2.judged.cells[0].mean_ratio_pct, 0.0, 1e-9);  // the wobble averages out
  // The sealed forecast (rank 0's anchors): 500 + 50 = 550 µs against 600: +9.09 %.
  EXPECT_NEAR(ideal2.sealed_error_pct.at(0), (600.0 / 550.0 - 1.0) * 100.0, 1e-9);
  EXPECT_EQ(find_verdict(e, "replay", 2).outcome, Outcome::holds);
  EXPECT_EQ(find_verdict(e, "ideal", 1).outcome, Outcome::holds);
  EXPECT_NEAR(find_verdict(e, "ideal", 1).judged.cells[0].error_pct, 0.0, 1e-12);

  // no_speedup at k = 2: 1100 + 50 = 1150 µs against 600, ln(600/1150) = −0.651,
  // beyond −δ; at 7 blocks the 1 − α/m = 0.975 interval is [min, max] (2/128 ≤ 0.025).
  const FormKVerdict& none2 = find_verdict(e, "no_speedup", 2);
  EXPECT_EQ(none2.outcome, Outcome::falsified);
  EXPECT_NEAR(none2.judged.cells[0].median_log, std::log(600.0 / 1150.0), 1e-12);

  // The CPU backend cannot split the host term.
  EXPECT_EQ(find_verdict(e, "host_floor", 2).outcome, Outcome::not_applicable);
  EXPECT_EQ(find_verdict(e, "max_form", 1).outcome, Outcome::not_applicable);

  // Straggler: rank 1 arrives 50 µs late in a 600 µs step, 8.33 % > K/2.
  ASSERT_TRUE(e.straggler.count(2));
  EXPECT_EQ(e.straggler.at(2).systematic_rank, 1);
  // The localizer measures compute on the group's slowest rank too (550 µs,
  // as `ideal` predicts), so the straggler is not counted twice.
  ASSERT_TRUE(ideal2.localized.has_value());
  EXPECT_NEAR(ideal2.localized->departure_us, 0.0, 1e-9);
  EXPECT_FALSE(find_verdict(e, "ideal", 1).localized.has_value());
  EXPECT_THROW(find_verdict(e, "ideal", 4), Error);
}

TEST(EvaluateRounds, AnAaFailingOnOneRankWithholdsHoldsOnly) {
  // Rank 1's TP-1 step 30 % above its own --no-comm: ln 1.3 > δ.
  const RoundsEvaluation e = evaluate_rounds(tiny_registration(), rounds_of(1.3));
  EXPECT_FALSE(e.aa.holds);
  EXPECT_EQ(e.aa.worst_cell, 1);
  const FormKVerdict& ideal2 = find_verdict(e, "ideal", 2);
  EXPECT_EQ(ideal2.outcome, Outcome::inconclusive);
  EXPECT_EQ(ideal2.judged.reason, InconclusiveReason::aa_not_held);
  EXPECT_EQ(find_verdict(e, "no_speedup", 2).outcome, Outcome::falsified);
}

TEST(EvaluateRounds, RefusesARoundWithoutARegisteredCell) {
  std::vector<RoundObservation> rounds = rounds_of();
  rounds[3].step_us.erase({2, 1, 256});
  EXPECT_THROW(evaluate_rounds(tiny_registration(), rounds), Error);
  EXPECT_THROW(evaluate_rounds(tiny_registration(), {}), Error);
}

}  // namespace
}  // namespace tpb
