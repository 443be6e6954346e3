// The rounds evaluation on simulated studies whose truth is known: a form
// within 5 % HOLDS, one 30 % off is FALSIFIED, no_speedup is FALSIFIED at
// k = 2, the A/A control holds, a drift common to every condition cancels in
// the paired evaluation and shows as drift, forms whose host term the CPU
// backend cannot measure are NOT_APPLICABLE, the localizer tells a rank held
// back from slower compute, and the sealed design's custody.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/random64.hpp"
#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "predictor/round_localization.hpp"
#include "predictor/study_design.hpp"

namespace tpb {
namespace {

// Quick-start shaped registration: k {1, 2}, b {1, 8}, c {256}. The true
// TP-k step is t_compute(1)/k + collectives, times (1 + true_error) at k = 2.
Registration simulated_registration(const std::string& backend) {
  Registration r;
  r.workload.backend = backend;
  r.grid = {{1, 2}, {1, 8}, {256}};
  r.kill_switches = kill_switch_table(15.0);
  for (int k : r.grid.tp)
    for (int b : r.grid.batch) {
      CellInputs cell;
      cell.batch = b;
      cell.context = 256;
      const double compute1 = 40000.0 + 15000.0 * b;
      cell.inputs = {.k = k, .t_compute1_us = compute1, .t_host_us = compute1 / k, .t_replay_us = compute1 / k,
                     .n_ar = 4, .t_ar_sweep_us = k == 1 ? 0.0 : 50.0, .n_ag = 1, .t_ag_sweep_us = k == 1 ? 0.0 : 100.0};
      r.calibration.push_back(cell);
    }
  r.predictions = predict_all(r.calibration);
  r.design = make_rounds_design(10, 20, 0, 7, 15.0);
  return r;
}

double gaussian(SplitMix64& rng) {
  const double u1 = 1.0 - uniform_unit(rng), u2 = uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// `rounds` rounds: every condition measured with `noise` relative spread,
// `shift` slower than at calibration throughout, plus a common drift rising
// linearly to `drift` over the run; the TP-2 step is `tp2_error` slower than
// the ideal composition.
std::vector<RoundObservation> simulate(const Registration& r, int rounds, double noise, double drift,
                                       double tp2_error, std::uint64_t seed, double shift = 0.0) {
  SplitMix64 rng(seed);
  std::vector<RoundObservation> out;
  for (int round = 0; round < rounds; ++round) {
    const double level = (1.0 + shift) * (1.0 + drift * round / std::max(1, rounds - 1));
    const auto measure = [&](double truth) { return truth * level * (1.0 + noise * gaussian(rng)); };
    RoundObservation o;
    for (const CellInputs& cell : r.calibration) {
      const FormInputs& in = cell.inputs;
      const double truth = in.t_compute1_us / in.k + collective_term_us(in);
      o.step_us[{in.k, cell.batch, cell.context}] = measure(in.k == 1 ? truth : truth * (1.0 + tp2_error));
      o.replay_us[{in.k, cell.batch, cell.context}] = measure(in.t_replay_us);
      o.host_us[{in.k, cell.batch, cell.context}] = measure(in.t_host_us);
      if (in.k == 1) {
        o.compute1_us[{cell.batch, cell.context}] = measure(in.t_compute1_us);
        o.same_node_rank_us[{cell.batch, cell.context}] = {measure(in.t_compute1_us), measure(in.t_compute1_us)};
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

const CellVerdict& verdict_of(const RoundsEvaluation& e, const std::string& form, int k) {
  for (const auto& cell : e.cells)
    if (cell.form == form && cell.k == k) return cell.verdict;
  throw std::runtime_error("no such cell");
}

TEST(RoundEvaluation, QuickStartShapedStudyDecidesWhatItsTruthSays) {
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.02, 0.0, 0.05, 11));
  // ideal, replay, no_speedup at k = 2, and at k = 1 their one prediction
  EXPECT_EQ(e.judged_cells, 4);
  EXPECT_TRUE(e.controls.aa_holds);
  EXPECT_FALSE(e.controls.rank_imbalance);
  EXPECT_TRUE(e.controls.unpowered_k.empty());
  EXPECT_EQ(e.controls.no_speedup.at(2), Outcome::falsified);
  EXPECT_EQ(verdict_of(e, "ideal", 1).outcome, Outcome::holds);
  EXPECT_EQ(verdict_of(e, "ideal", 2).outcome, Outcome::holds);
  EXPECT_NEAR(verdict_of(e, "ideal", 2).error_pct, 5.0, 1.5);
  EXPECT_EQ(verdict_of(e, "no_speedup", 2).outcome, Outcome::falsified);
  EXPECT_EQ(verdict_of(e, "ideal", 2).rounds, 10);
}

// Rounds whose TP-2 step is 40 % slower than `ideal`, with the localizer's
// sources: where `one_rank_held_back`, rank 1 computes 40 % of the step
// longer and rank 0 waits for it inside the collectives (its no-comm time is
// unchanged); otherwise every rank computes slower and neither waits.
std::vector<RoundObservation> slow_tp2_rounds(const Registration& r, bool one_rank_held_back) {
  std::vector<RoundObservation> rounds = simulate(r, 10, 0.02, 0.0, 0.40, 21);
  for (RoundObservation& o : rounds)
    for (const CellInputs& cell : r.calibration) {
      if (cell.inputs.k != 2) continue;
      const DegreeCell c{2, cell.batch, cell.context};
      const double step = o.step_us.at(c), collective = collective_term_us(cell.inputs);
      const double late = step - cell.inputs.t_compute1_us / 2 - collective;
      o.nocomm_fastest_us[c] = one_rank_held_back ? cell.inputs.t_compute1_us / 2 : step - collective;
      o.rank_collective_us[c] = one_rank_held_back ? std::vector<double>{collective + late, collective}
                                                   : std::vector<double>{collective, collective};
    }
  return rounds;
}

TEST(RoundLocalization, ARankHeldBackIsTheStragglerNotCompute) {
  const Registration r = simulated_registration("cpu");
  const std::optional<Localization> l = localize_rounds(r, find_model_form("ideal"), 2, slow_tp2_rounds(r, true));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->term, "straggler");
  EXPECT_GT(l->departure_pct, 20.0);  // 40 % of ideal is 2/7 of the measured step
}

TEST(RoundLocalization, EveryRankComputingSlowerIsCompute) {
  const Registration r = simulated_registration("cpu");
  const std::optional<Localization> l = localize_rounds(r, find_model_form("ideal"), 2, slow_tp2_rounds(r, false));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->term, "compute");
  EXPECT_GT(l->departure_pct, 20.0);
}

TEST(RoundLocalization, AbsentAtOneDeviceAndWithoutPerRankCollectiveTimes) {
  const Registration r = simulated_registration("cpu");
  EXPECT_FALSE(localize_rounds(r, find_model_form("ideal"), 1, slow_tp2_rounds(r, true)).has_value());
  EXPECT_FALSE(localize_rounds(r, find_model_form("ideal"), 2, simulate(r, 10, 0.02, 0.0, 0.40, 21)).has_value());
}

TEST(RoundEvaluation, ThirtyPercentOffIsFalsified) {
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.02, 0.0, 0.30, 12));
  EXPECT_EQ(verdict_of(e, "ideal", 2).outcome, Outcome::falsified);
  EXPECT_EQ(verdict_of(e, "replay", 2).outcome, Outcome::falsified);
  EXPECT_EQ(verdict_of(e, "ideal", 1).outcome, Outcome::holds);  // k = 1 is untouched
}

TEST(RoundEvaluation, CommonDriftCancelsInThePairedEvaluationAndIsReportedAsDrift) {
  const Registration r = simulated_registration("cpu");
  // Every condition slows by up to 40 % over the run: the sealed calibration
  // numbers fall behind, this round's anchors do not.
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.01, 0.40, 0.0, 13));
  const CellVerdict& ideal = verdict_of(e, "ideal", 2);
  EXPECT_LT(ideal.error_ci_high_pct, 5.0);  // paired: the drift cancels
  EXPECT_LT(ideal.drift_pct, -10.0);        // sealed predictions are too fast by the drift
  EXPECT_GT(ideal.sealed_error_pct, 10.0);
}

TEST(RoundEvaluation, OpposedPairedAndSealedVerdictsAreInconclusiveDrift) {
  const Registration r = simulated_registration("cpu");
  // Everything ran 40 % slower than at calibration, a minute earlier: the
  // calibration-time numbers are FALSIFIED in every round, the paired ones HOLD.
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.005, 0.0, 0.0, 14, 0.40));
  const CellVerdict& ideal = verdict_of(e, "ideal", 2);
  EXPECT_EQ(ideal.paired_outcome, Outcome::holds);
  EXPECT_EQ(ideal.sealed_outcome, Outcome::falsified);
  EXPECT_EQ(ideal.outcome, Outcome::inconclusive);
  EXPECT_EQ(ideal.reason, InconclusiveReason::drift);
}

TEST(RoundEvaluation, TransferIsAbsentAndOutOfTheFamilyUnlessRegistered) {
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.02, 0.0, 0.05, 11));
  for (const auto& cell : e.cells) EXPECT_NE(cell.form, "transfer");
  EXPECT_EQ(family_cell_count(3, BackendKind::cpu, r.grid.tp, registered_forms(true)), e.judged_cells + 2);
}

TEST(RoundEvaluation, TransferIsJudgedOnItsSealedPredictionWithoutTheDriftGate) {
  // `transfer` priced exactly as `ideal`; then everything runs 40 % slower
  // than at calibration. `ideal`'s paired evaluation follows the rounds'
  // anchors and its sealed one disagrees: drift. `transfer` has no anchor in
  // the rounds, so its paired and sealed predictions are one: no drift, and
  // the sealed prediction is FALSIFIED by what was measured.
  Registration r = simulated_registration("cpu");
  r.transfer = TransferSource{};
  for (CellInputs& cell : r.calibration) cell.inputs.t_transfer_us = cell.inputs.t_compute1_us / cell.inputs.k;
  r.kill_switches = kill_switch_table(15.0, true);
  r.predictions = predict_all(r.calibration, registered_forms(r));
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.005, 0.0, 0.0, 14, 0.40));
  EXPECT_EQ(e.judged_cells, 6);  // transfer at k = 1 and k = 2 join the family
  EXPECT_EQ(verdict_of(e, "ideal", 2).reason, InconclusiveReason::drift);
  for (int k : {1, 2}) {
    const CellVerdict& transfer = verdict_of(e, "transfer", k);
    EXPECT_DOUBLE_EQ(transfer.drift_pct, 0.0) << k;
    EXPECT_EQ(transfer.outcome, Outcome::falsified) << k;
    EXPECT_NEAR(transfer.signed_error_pct, 40.0, 2.0) << k;
  }
}

TEST(RoundEvaluation, NoisyAaControlMakesEveryCellInconclusive) {
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.25, 0.0, 0.05, 15));
  EXPECT_FALSE(e.controls.aa_holds);
  for (const auto& cell : e.cells)
    if (cell.verdict.outcome != Outcome::not_applicable) {
      EXPECT_EQ(cell.verdict.outcome, Outcome::inconclusive) << cell.form << " k=" << cell.k;
    }
}

TEST(RoundEvaluation, TooFewRoundsForTheSplitAlphaAreInconclusive) {
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 5, 0.02, 0.0, 0.05, 16));
  EXPECT_EQ(verdict_of(e, "ideal", 2).reason, InconclusiveReason::too_few_rounds);
  EXPECT_GT(verdict_of(e, "ideal", 2).rounds_needed, 0);
}

TEST(FormApplicability, HostFormsAreNotApplicableOnCpuWithAReason) {
  EXPECT_FALSE(not_applicable_reason("host_floor", BackendKind::cpu).empty());
  EXPECT_FALSE(not_applicable_reason("max_form", BackendKind::cpu).empty());
  EXPECT_TRUE(not_applicable_reason("ideal", BackendKind::cpu).empty());
  EXPECT_TRUE(not_applicable_reason("host_floor", BackendKind::cuda).empty());
  const Registration r = simulated_registration("cpu");
  const RoundsEvaluation e = evaluate_rounds(r, *r.design, simulate(r, 10, 0.02, 0.0, 0.05, 17));
  for (const char* form : {"host_floor", "max_form"})
    for (int k : {1, 2}) {
      const CellVerdict& v = verdict_of(e, form, k);
      EXPECT_EQ(v.outcome, Outcome::not_applicable) << form;
      EXPECT_NE(v.not_applicable_reason.find("host-synchronous"), std::string::npos);
      EXPECT_TRUE(std::isnan(v.error_pct));  // never judged
    }
  const Registration gpu = simulated_registration("cuda");
  // Five forms at k = 2; at k = 1 ideal (for replay and no_speedup too), host_floor and max_form.
  EXPECT_EQ(evaluate_rounds(gpu, *gpu.design, simulate(gpu, 10, 0.02, 0.0, 0.05, 17)).judged_cells, 8);
}

TEST(StudyDesign, CheckpointsDoubleFromMinAndEndAtMax) {
  EXPECT_EQ(checkpoints_between(10, 20), (std::vector<int>{10, 20}));
  EXPECT_EQ(checkpoints_between(8, 32), (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(checkpoints_between(6, 6), (std::vector<int>{6}));
  EXPECT_EQ(checkpoints_between(5, 12), (std::vector<int>{5, 10, 12}));
}

TEST(StudyDesign, RoundsRangeParsesAndRefusesBadValues) {
  int low = 0, high = 0;
  parse_rounds_range("10:20", &low, &high);
  EXPECT_EQ(low, 10);
  EXPECT_EQ(high, 20);
  parse_rounds_range("12", &low, &high);
  EXPECT_EQ(low, 12);
  EXPECT_EQ(high, 12);
  for (const char* bad : {"", "1:4", "8:4", "a:b", "10:", "-3:5", "10:20:30"})
    EXPECT_THROW(parse_rounds_range(bad, &low, &high), UsageError) << bad;
}

TEST(StudyDesign, SealedInTheRegistrationAndReadBack) {
  Registration r = simulated_registration("cpu");
  r.design = make_rounds_design(8, 32, 120, 99, 12.5);
  const Registration back = parse_registration(registration_json(r));
  ASSERT_TRUE(back.design.has_value());
  EXPECT_EQ(back.version, kRegistrationVersion);
  EXPECT_EQ(back.design->min_rounds, 8);
  EXPECT_EQ(back.design->max_rounds, 32);
  EXPECT_EQ(back.design->time_budget_s, 120);
  EXPECT_EQ(back.design->order_seed, 99u);
  EXPECT_EQ(back.design->rule.kill_switch_pct, 12.5);
  EXPECT_EQ(back.design->rule.checkpoints, (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(back.design->rule.family_alpha, 0.05);
}

TEST(StudyDesign, AnyClaimThatDiffersFromTheSealedDesignIsNamed) {
  const RoundsDesign sealed = make_rounds_design(10, 20, 0, 20240, 15.0);
  EXPECT_EQ(design_claims_difference(sealed, {}), "");
  EXPECT_EQ(design_claims_difference(sealed, {.min_rounds = 10, .max_rounds = 20, .seed = 20240u}), "");
  EXPECT_NE(design_claims_difference(sealed, {.min_rounds = 8, .max_rounds = 20}).find("--rounds"), std::string::npos);
  EXPECT_NE(design_claims_difference(sealed, {.seed = 1u}).find("--seed: 1 differs"), std::string::npos);
  EXPECT_NE(design_claims_difference(sealed, {.time_budget_s = 60.0}).find("--time-budget"), std::string::npos);
  EXPECT_NE(design_claims_difference(sealed, {.kill_switch_pct = 20.0}).find("--kill-switch"), std::string::npos);
  EXPECT_NE(design_claims_difference(sealed, {.family_alpha = 0.1}).find("--alpha"), std::string::npos);
}

}  // namespace
}  // namespace tpb
