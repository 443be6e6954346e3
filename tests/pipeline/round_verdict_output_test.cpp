// What the rounds verdict writes and prints, from evaluations built by hand:
// under rule version 3 the signed error, the per-cell errors, the localized
// term, explained_by, the straggler term and a systematic-imbalance warning
// naming the rank with its host and device; under version 2 none of the
// version 3 figures, and the same-node gate as sealed. The console's last
// lines are the answer per TP degree.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "mpi_bench/pipeline/stages.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"
#include "results/report_rounds.hpp"
#include "results/round_verdict_file.hpp"

namespace tpb {
namespace {

RoundInterval interval(double estimate, double low, double high) {
  return {true, 20, estimate, low, high, 0.95};
}

CellVerdict judged(Outcome outcome, double error, double low, double high) {
  CellVerdict v;
  v.outcome = outcome;
  v.error_pct = error;
  v.error_ci_low_pct = low;
  v.error_ci_high_pct = high;
  v.signed_error_pct = error;
  v.signed_ci_low_pct = low;
  v.signed_ci_high_pct = high;
  v.cell_error_pct = {error - 1, error + 1};
  v.rounds = 20;
  v.paired_outcome = v.sealed_outcome = outcome;
  return v;
}

// TP-1: ideal and replay HOLD (one prediction there); TP-2: ideal FALSIFIED and explained by a straggler whose
// rank 1 is systematically slower, replay open, host_floor not applicable.
RoundsEvaluation evaluation(int rule_version) {
  RoundsEvaluation e;
  e.rule_version = rule_version;
  e.rounds = 20;
  e.judged_cells = 3;
  e.alpha = 0.01;
  e.controls.aa_run = true;
  e.controls.aa_upper_pct = 3.5;
  e.controls.same_node_run = true;
  e.controls.same_node_spread_pct = interval(9.0, 4.0, 12.0);
  e.controls.rank_imbalance = rule_version == 2;
  e.cells.push_back({"ideal", 1, judged(Outcome::holds, 1.25, 0.5, 3.5), std::nullopt});
  e.cells.push_back({"replay", 1, judged(Outcome::holds, 1.25, 0.5, 3.5), std::nullopt});  // the same prediction
  CellVerdict falsified = judged(Outcome::falsified, 24.0, 19.0, 29.0);
  falsified.explained_by = "straggler";
  e.cells.push_back({"ideal", 2, falsified, Localization{"straggler", 300, 0, 300, 21.5}});
  CellVerdict open = judged(Outcome::inconclusive, 14.0, 9.0, 18.0);
  open.reason = InconclusiveReason::straddles_threshold;
  open.rounds_needed = 12;
  e.cells.push_back({"replay", 2, open, Localization{"compute", 900, 800, 100, 7.0}});
  CellVerdict na;
  na.outcome = Outcome::not_applicable;
  na.not_applicable_reason = "host-synchronous backend";
  e.cells.push_back({"host_floor", 2, na, std::nullopt});
  StragglerTerm term;
  term.straggler_pct = interval(11.0, 9.0, 20.0);
  term.ranks = {{0, interval(0.0, 0.0, 0.5)}, {1, interval(21.0, 18.0, 25.0)}};
  term.systematic_rank = 1;
  e.straggler[2] = term;
  return e;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".h5")).string();
}

// A file whose /meta rank map is laid out as provenance writes it.
std::string file_with_rank_map(const std::string& name) {
  const std::string path = temp_path(name);
  H5File file(path, H5Mode::create_overwrite);
  H5Handle meta = file.group(kMetaGroup);
  write_attribute(meta.id(), "rank_map",
                  std::vector<std::string>{R"j({"rank": 0, "node": "nodeA", "device": "cpu (1 OpenMP threads)"})j",
                                           R"j({"rank": 1, "node": "nodeB", "device": "cpu (1 OpenMP threads)"})j"});
  return path;
}

TEST(RoundVerdictFile, Version3WritesSignedErrorLocalizationAndTheStragglerWarning) {
  const std::string path = file_with_rank_map("tpb_round_verdict_v3");
  {
    H5File file(path, H5Mode::read_write);
    write_round_verdicts(file, evaluation(3));
  }
  const H5File file(path, H5Mode::read_only);
  H5Handle ideal2 = file.open_object(verdict_group_path("ideal", 2));
  EXPECT_EQ(read_string_attribute(ideal2.id(), "verdict"), "FALSIFIED");
  EXPECT_EQ(read_double_attribute(ideal2.id(), "error_ci_high_pct"), 29.0);  // the unsigned error's upper bound
  EXPECT_EQ(read_double_attribute(ideal2.id(), "signed_error_pct"), 24.0);
  EXPECT_EQ(read_double_attribute(ideal2.id(), "signed_ci_low_pct"), 19.0);
  EXPECT_EQ(read_double_attribute(ideal2.id(), "signed_ci_high_pct"), 29.0);
  EXPECT_EQ(read_double_list_attribute(ideal2.id(), "cell_error_pct"), (std::vector<double>{23.0, 25.0}));
  EXPECT_EQ(read_string_attribute(ideal2.id(), "explained_by"), "straggler");
  EXPECT_EQ(read_string_attribute(ideal2.id(), "localized_term"), "straggler");
  EXPECT_EQ(read_double_attribute(ideal2.id(), "localized_departure_us"), 300.0);
  EXPECT_EQ(read_double_attribute(ideal2.id(), "localized_departure_pct"), 21.5);
  // k = 1 measured no term in the rounds: absent, never 0.
  H5Handle ideal1 = file.open_object(verdict_group_path("ideal", 1));
  EXPECT_FALSE(has_attribute(ideal1.id(), "localized_term"));
  EXPECT_FALSE(has_attribute(ideal1.id(), "localized_departure_us"));
  EXPECT_EQ(read_string_attribute(ideal1.id(), "explained_by"), "");
  // Never judged: no figures of a judgement.
  H5Handle na = file.open_object(verdict_group_path("host_floor", 2));
  EXPECT_EQ(read_string_attribute(na.id(), "verdict"), "NOT_APPLICABLE");
  for (const char* name : {"signed_error_pct", "cell_error_pct", "explained_by", "localized_term"})
    EXPECT_FALSE(has_attribute(na.id(), name)) << name;

  H5Handle root = file.open_object(kVerdictGroup);
  EXPECT_EQ(read_integer_attribute(root.id(), "rule_version"), 3);
  EXPECT_EQ(read_integer_attribute(root.id(), "final_look"), 1);
  EXPECT_EQ(read_double_attribute(root.id(), "control_aa_upper_pct"), 3.5);
  EXPECT_EQ(read_string_attribute(root.id(), "control_same_node"), "MEASURED");  // gates nothing under version 3
  EXPECT_EQ(read_double_attribute(root.id(), "straggler_k2_pct"), 11.0);
  EXPECT_EQ(read_double_attribute(root.id(), "straggler_k2_low_pct"), 9.0);
  EXPECT_EQ(read_double_attribute(root.id(), "straggler_k2_high_pct"), 20.0);
  EXPECT_EQ(read_double_list_attribute(root.id(), "straggler_k2_rank_slowdown_pct"), (std::vector<double>{0.0, 21.0}));
  EXPECT_EQ(read_integer_attribute(root.id(), "straggler_k2_systematic_rank"), 1);
  EXPECT_FALSE(has_attribute(root.id(), "straggler_k1_pct"));
  const std::string warning = read_string_attribute(root.id(), "warning_systematic_imbalance_k2");
  EXPECT_NE(warning.find("rank 1 (host nodeB, device cpu (1 OpenMP threads))"), std::string::npos) << warning;
  EXPECT_NE(warning.find("21.0 % of t_step [18.0, 25.0]"), std::string::npos) << warning;
  std::filesystem::remove(path);
}

TEST(RoundVerdictFile, Version2KeepsItsSealedFiguresAndGate) {
  const std::string path = file_with_rank_map("tpb_round_verdict_v2");
  RoundsEvaluation e = evaluation(2);
  e.straggler.clear();  // a version 2 file recorded no per-rank collective times
  for (FormKVerdict& cell : e.cells) {
    cell.verdict.explained_by.clear();
    cell.localized.reset();
  }
  {
    H5File file(path, H5Mode::read_write);
    write_round_verdicts(file, e);
  }
  const H5File file(path, H5Mode::read_only);
  H5Handle ideal2 = file.open_object(verdict_group_path("ideal", 2));
  EXPECT_EQ(read_double_attribute(ideal2.id(), "error_pct"), 24.0);
  for (const char* name : {"signed_error_pct", "signed_ci_low_pct", "cell_error_pct", "explained_by", "localized_term"})
    EXPECT_FALSE(has_attribute(ideal2.id(), name)) << name;
  H5Handle root = file.open_object(kVerdictGroup);
  EXPECT_EQ(read_integer_attribute(root.id(), "rule_version"), 2);
  EXPECT_EQ(read_string_attribute(root.id(), "control_same_node"), "RANK_IMBALANCE");
  EXPECT_FALSE(has_attribute(root.id(), "straggler_k2_pct"));
  EXPECT_FALSE(has_attribute(root.id(), "warning_systematic_imbalance_k2"));
  std::filesystem::remove(path);
}

TEST(RoundVerdictFile, PlacementsComeFromTheRankMapAndAFileWithoutOneHasNone) {
  const std::string path = file_with_rank_map("tpb_round_verdict_placements");
  EXPECT_EQ(read_rank_placements(H5File(path, H5Mode::read_only)),
            (std::vector<std::string>{"host nodeA, device cpu (1 OpenMP threads)",
                                      "host nodeB, device cpu (1 OpenMP threads)"}));
  { H5File(path, H5Mode::create_overwrite); }
  EXPECT_TRUE(read_rank_placements(H5File(path, H5Mode::read_only)).empty());
  std::filesystem::remove(path);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The console ends with one line per TP degree: verdicts, error with its
// interval, the localized term, and what would settle an open cell.
TEST(VerdictSummary, EndsWithTheAnswerPerDegree) {
  StudyVerdict verdict;
  verdict.rounds = evaluation(3);
  verdict.rank_placements = {"host nodeA, device d0", "host nodeB, device d1"};
  const std::string text = verdict_summary(verdict);
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GE(lines.size(), 3u);
  const std::string& tp1 = lines[lines.size() - 2];
  const std::string& tp2 = lines.back();
  EXPECT_EQ(lines[lines.size() - 3], "# the answer per TP degree:");
  EXPECT_EQ(tp1, "# TP-1: ideal, replay HOLDS, error 1.25 % [0.50, 3.50] (signed +1.25 %), localized: not measured");
  EXPECT_NE(tp2.find("# TP-2: ideal FALSIFIED, error 24.00 % [19.00, 29.00] (signed +24.00 %), localized: straggler "
                     "+300.0 us (+21.5 % of t_step), explained by straggler"),
            std::string::npos)
      << tp2;
  EXPECT_NE(tp2.find("replay INCONCLUSIVE, error 14.00 % [9.00, 18.00]"), std::string::npos) << tp2;
  EXPECT_NE(tp2.find("localized: compute +100.0 us (+7.0 % of t_step) (straddles_threshold; its interval straddles "
                     "K: about 12 more rounds)"),
            std::string::npos)
      << tp2;
  EXPECT_NE(tp2.find("host_floor NOT_APPLICABLE"), std::string::npos) << tp2;
  EXPECT_NE(text.find("# WARNING TP-2: rank 1 (host nodeB, device d1) is slower"), std::string::npos) << text;
  EXPECT_NE(text.find("# straggler k=2: 11.0 % of t_step (9.0..20.0), slowdown per rank 0.0, 21.0 %"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("spread 9.0 % (upper 12.0 %), descriptive"), std::string::npos) << text;
  EXPECT_EQ(text.find("point rule"), std::string::npos) << text;
}

TEST(VerdictSummary, Version2ShowsTheSameNodeGateAndNoSignedError) {
  StudyVerdict verdict;
  verdict.rounds = evaluation(2);
  const std::string text = verdict_summary(verdict);
  EXPECT_NE(text.find("# rule version 2"), std::string::npos) << text;
  EXPECT_NE(text.find(": RANK IMBALANCE"), std::string::npos) << text;
  EXPECT_EQ(text.find("signed +"), std::string::npos) << text;
  EXPECT_EQ(lines_of(text).back().rfind("# TP-2: ideal FALSIFIED, error 24.00 % [19.00, 29.00], localized:", 0), 0u)
      << text;
}

}  // namespace
}  // namespace tpb
