// The pre-registration record: predictions for every form and cell, a
// lossless JSON round trip, and a digest that changes with any threshold.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/registration.hpp"
#include "predictor/sha256.hpp"

namespace tpb {
namespace {

Registration sample_registration(double threshold_pct) {
  Registration r;
  r.registered_at = "2026-11-30T04:15:00.123456Z";
  r.tool_version = "0.1.0";
  r.workload = {"tiny", "configs/tiny.json", std::string(64, 'a'), 2, 64, 256, 4, "cpu", 2, 10, 7, 1000};
  r.grid = {{1, 2}, {1, 4}, {64}};
  r.kill_switches = kill_switch_table(threshold_pct);
  r.falsification_rule = decision_rule_text(kDecisionRuleVersion);
  r.source = {"out/study.h5", {"/step_nocomm/k1/b1_c64/t_step_us"}, std::string(64, 'b')};
  for (int k : r.grid.tp)
    for (int b : r.grid.batch)
      r.calibration.push_back({b, 64, b * 64 * 4, b * 256 / k * 4,
                               {.k = k, .t_compute1_us = 1000.0 * b, .t_host_us = 30, .t_replay_us = 510.0 * b / k,
                                .n_ar = 4, .t_ar_sweep_us = k > 1 ? 12.5 : 0.0, .n_ag = 1,
                                .t_ag_sweep_us = k > 1 ? 0.1 / 3 : 0.0}});
  r.predictions = predict_all(r.calibration);
  return r;
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 pieces;
  pieces.update("a");
  pieces.update("bc");
  EXPECT_EQ(pieces.hex_digest(), sha256_hex("abc"));
}

TEST(Registration, PredictsEveryFormForEveryCell) {
  const Registration r = sample_registration(15);
  EXPECT_EQ(r.predictions.size(), model_forms().size() * r.calibration.size());
  // ideal at k=2, b=4: 4000/2 + 4·12.5 + 1·(0.1/3).
  EXPECT_DOUBLE_EQ(find_prediction(r, "ideal", 2, 4, 64).prediction.t_step_us, 2000 + 50 + 0.1 / 3);
  EXPECT_DOUBLE_EQ(find_prediction(r, "host_floor", 1, 1, 64).prediction.t_step_us, 1030.0);
  EXPECT_THROW(find_prediction(r, "ideal", 4, 1, 64), Error);
}

TEST(Registration, JsonRoundTripIsExact) {
  const Registration r = sample_registration(15);
  const std::string text = registration_json(r);
  const Registration back = parse_registration(text);
  EXPECT_EQ(registration_json(back), text);
  EXPECT_EQ(back.grid.tp, r.grid.tp);
  EXPECT_EQ(find_cell_inputs(back, 2, 4, 64).inputs.t_ag_sweep_us, 0.1 / 3);  // bit-exact doubles
  EXPECT_EQ(back.workload.bootstrap_seed, 7u);
}

TEST(Registration, DecisionDeclarationIsSealedAndReadBack) {
  Registration r = sample_registration(15);
  r.decision.tpot_slo_ms = 50;
  r.decision.predict_tp = {4, 8};
  ModelledDegree m{4, "ring model scaled from the TP-2 sweep fits; EXTRAPOLATED", {}, {}};
  m.calibration.push_back(find_cell_inputs(r, 2, 4, 64));
  m.calibration.back().inputs.k = 4;
  m.predictions = predict_all(m.calibration);
  r.modelled_degrees.push_back(m);
  const std::string text = registration_json(r);
  const Registration back = parse_registration(text);
  EXPECT_EQ(registration_json(back), text);
  EXPECT_EQ(back.decision.tpot_slo_ms, 50);
  EXPECT_EQ(back.decision.predict_tp, (std::vector<int>{4, 8}));
  ASSERT_EQ(back.modelled_degrees.size(), 1u);
  EXPECT_EQ(back.modelled_degrees[0].predictions.size(), m.predictions.size());
  // A changed SLO is a different registration.
  r.decision.tpot_slo_ms = 60;
  EXPECT_NE(sha256_hex(registration_json(r)), sha256_hex(text));
  // A registration sealed before the decision existed reads as none declared.
  std::string old = registration_json(sample_registration(15));
  old = old.substr(0, old.find(",\n  \"decision\"")) + "\n}\n";
  const Registration without = parse_registration(old);
  EXPECT_FALSE(without.decision.tpot_slo_ms);
  EXPECT_TRUE(without.modelled_degrees.empty());
}

TEST(Registration, AChangedThresholdChangesTheDigest) {
  EXPECT_NE(sha256_hex(registration_json(sample_registration(15))),
            sha256_hex(registration_json(sample_registration(15.5))));
  EXPECT_EQ(sha256_hex(registration_json(sample_registration(15))),
            sha256_hex(registration_json(sample_registration(15))));
}

TEST(Registration, MalformedTextNamesTheProblem) {
  EXPECT_THROW(parse_registration("{"), UsageError);
  try {
    parse_registration(R"({"registration_version": 1, "registered_at": "x"})");
    FAIL() << "accepted a registration without tool_version";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("tool_version"), std::string::npos);
  }
}

}  // namespace
}  // namespace tpb
