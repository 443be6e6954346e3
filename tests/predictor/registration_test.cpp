// The pre-registration record: predictions for every form and cell, a
// lossless JSON round trip, and a digest that changes with any threshold.
#include <gtest/gtest.h>

#include <fmt/format.h>

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
  r.falsification_rule = decision_rule_text(DecisionRule{});
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
  EXPECT_DOUBLE_EQ(find_prediction(r.predictions, "ideal", 2, 4, 64).prediction.t_step_us, 2000 + 50 + 0.1 / 3);
  EXPECT_DOUBLE_EQ(find_prediction(r.predictions, "host_floor", 1, 1, 64).prediction.t_step_us, 1030.0);
  EXPECT_THROW(find_prediction(r.predictions, "ideal", 4, 1, 64), Error);
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
  const auto from = old.find(",\n  \"decision\":"), to = old.find(",\n  \"decision_rule\":");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  old.erase(from, to - from);
  const Registration without = parse_registration(old);
  EXPECT_FALSE(without.decision.tpot_slo_ms);
  EXPECT_TRUE(without.modelled_degrees.empty());
}

// `transfer` registered beside the study's own forms, with a fit of two
// elementwise points and one priced cell per calibrated cell.
Registration with_transfer() {
  Registration r = sample_registration(15);
  TransferSource t;
  t.results_file = "a/study.h5";
  t.model = "llama-a";
  t.machine = {"Some CPU @ 2.0GHz", 2, "cpu", "mpi"};
  t.batch = {1, 4};
  t.context = {64};
  t.datasets = {"/replay/k1/b1_c64/phase/norm_us"};
  t.datasets_sha256 = std::string(64, 'c');
  t.fit.classes.push_back(fit_phase_class(PhaseClass::elementwise, {{"norm", 1, 1, 64, 5, 1e4, 1e3, 20.0 / 3},
                                                                    {"norm", 1, 4, 64, 5, 4e4, 4e3, 30.0}}));
  t.fit_sha256 = phase_cost_fit_sha256(t.fit);
  for (CellInputs& cell : r.calibration) {
    t.cells.push_back({cell.inputs.k, cell.batch, cell.context, {{"norm", 100.0 * cell.batch}, {"qkv", 0.1 / 3}}, std::nullopt});
    cell.inputs.t_transfer_us = t.cells.back().compute_us();
  }
  r.transfer = t;
  r.kill_switches = kill_switch_table(15, true);
  r.predictions = predict_all(r.calibration, registered_forms(r));
  return r;
}

TEST(Registration, TransferIsSealedWithItsFitAndReadBackExactly) {
  const Registration plain = sample_registration(15);
  EXPECT_EQ(registration_json(plain).find("transfer"), std::string::npos);  // absent unless registered
  const Registration r = with_transfer();
  EXPECT_EQ(r.predictions.size(), registered_forms(true).size() * r.calibration.size());
  EXPECT_DOUBLE_EQ(find_prediction(r.predictions, "transfer", 2, 4, 64).prediction.t_step_us,
                   400 + 0.1 / 3 + 4 * 12.5 + 0.1 / 3);
  const std::string text = registration_json(r);
  const Registration back = parse_registration(text);
  EXPECT_EQ(registration_json(back), text);
  ASSERT_TRUE(back.transfer.has_value());
  EXPECT_EQ(back.transfer->machine, r.transfer->machine);
  EXPECT_EQ(back.transfer->fit.of(PhaseClass::elementwise).alpha_us, r.transfer->fit.of(PhaseClass::elementwise).alpha_us);
  EXPECT_EQ(find_transfer_cell(*back.transfer, 2, 4, 64).compute_us(), 400 + 0.1 / 3);
  EXPECT_EQ(registered_forms(back).back().name, "transfer");
}

// `r` with roofline registered at `ceilings`, sealed; the text reads back to
// itself, and `back` is what it reads back as.
std::string seal_with_roofline(Registration& r, const RooflineCeilings& ceilings, Registration& back) {
  r.roofline = ceilings;
  r.kill_switches = kill_switch_table(15, false, true);
  r.predictions = predict_all(r.calibration, registered_forms(r));
  std::string text = registration_json(r);
  back = parse_registration(text);
  EXPECT_EQ(registration_json(back), text);
  return text;
}

TEST(Registration, RooflineIsSealedWithItsCeilingsAndJudgedAsAbsolute) {
  Registration r = sample_registration(15);
  EXPECT_EQ(registration_json(r).find("roofline"), std::string::npos);  // absent unless measured
  for (CellInputs& cell : r.calibration) cell.inputs.t_roofline_us = 1000.0 * cell.batch / cell.inputs.k;
  Registration back;
  const std::string text =
      seal_with_roofline(r, RooflineCeilings{RooflineBandwidth::host_read, 7.5, 70.0, "membw", ""}, back);
  const CellInputs& cell = find_cell_inputs(r, 2, 4, 64);
  EXPECT_DOUBLE_EQ(find_prediction(r.predictions, "roofline", 2, 4, 64).prediction.t_step_us,
                   2000.0 + collective_term_us(cell.inputs));
  ASSERT_TRUE(back.roofline.has_value());
  EXPECT_EQ(back.roofline->bandwidth, RooflineBandwidth::host_read);
  EXPECT_EQ(back.roofline->bandwidth_GBps, 7.5);
  EXPECT_EQ(back.roofline->peak_GFLOPs, 70.0);
  EXPECT_EQ(find_cell_inputs(back, 2, 4, 64).inputs.t_roofline_us, 2000.0);
  EXPECT_EQ(registered_forms(back).back().name, "roofline");
  EXPECT_TRUE(registered_forms(back).back().absolute);
  EXPECT_NE(text.find(R"("roofline": {
    "read_GBps": 7.5,
    "peak_GFLOPs": 70.0,
    "bandwidth_probe": "membw",
    "bytes_priced": "read + written"
  })"),
            std::string::npos);
}

// On cuda the bandwidth is sealed as what it is, a copy's (bytes read plus
// written), with the GEMM its peak came from.
TEST(Registration, DeviceCeilingsAreSealedAsACopyBandwidthWithTheirGemm) {
  Registration r = sample_registration(15);
  Registration back;
  const std::string text = seal_with_roofline(
      r, RooflineCeilings{RooflineBandwidth::device_copy, 3000.0, 600000.0, "d2d", "cuBLAS GEMM 4096 x 4096 x 4096"},
      back);
  EXPECT_NE(text.find(R"("copy_GBps": 3000.0)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"("read_GBps":)"), std::string::npos) << text;
  ASSERT_TRUE(back.roofline.has_value());
  EXPECT_EQ(back.roofline->bandwidth, RooflineBandwidth::device_copy);
  EXPECT_EQ(back.roofline->bandwidth_GBps, 3000.0);
  EXPECT_EQ(back.roofline->peak_GFLOPs, 600000.0);
  EXPECT_EQ(back.roofline->bandwidth_probe, "d2d");
  EXPECT_EQ(back.roofline->peak_probe, "cuBLAS GEMM 4096 x 4096 x 4096");
}

TEST(Registration, AnEditedTransferFitIsRefusedByItsDigest) {
  const Registration r = with_transfer();
  const std::string text = registration_json(r);
  const std::string alpha = fmt::format("\"alpha_us\": {}", nlohmann::json(r.transfer->fit.classes[0].alpha_us).dump());
  const auto at = text.find(alpha);
  ASSERT_NE(at, std::string::npos) << alpha;
  std::string edited = text;
  edited.replace(at, alpha.size(), "\"alpha_us\": 0.5");
  try {
    parse_registration(edited);
    FAIL() << "an edited fit was read back";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fit_sha256"), std::string::npos) << e.what();
  }
}

TEST(Registration, ACampaignDigestIsSealedOnlyWhenGiven) {
  Registration r = sample_registration(15);
  EXPECT_EQ(registration_json(r).find("campaign_sha256"), std::string::npos);
  const std::string alone = sha256_hex(registration_json(r));
  r.campaign_sha256 = std::string(64, 'c');
  const std::string text = registration_json(r);
  EXPECT_NE(sha256_hex(text), alone);
  EXPECT_EQ(parse_registration(text).campaign_sha256, r.campaign_sha256);
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
    parse_registration(fmt::format(R"({{"registration_version": {}, "registered_at": "x"}})", kRegistrationVersion));
    FAIL() << "accepted a registration without tool_version";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("tool_version"), std::string::npos);
  }
}

TEST(Registration, ARetiredVersionIsRefusedInOneLineNamingIt) {
  std::string text = registration_json(sample_registration(15));
  const std::string sealed = fmt::format("\"registration_version\": {}", kRegistrationVersion);
  ASSERT_NE(text.find(sealed), std::string::npos);
  text.replace(text.find(sealed), sealed.size(), "\"registration_version\": 5");
  try {
    parse_registration(text);
    FAIL() << "judged a registration of a retired rule";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("registration version 5"), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace tpb
