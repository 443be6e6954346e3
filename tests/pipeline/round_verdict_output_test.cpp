// What the rounds verdict writes and prints, from evaluations built by hand
// under rule version 6: per (form, k) the verdict, its reason, the MAPE, the
// bound on |error| and every cell's figures (NaN where an interval is not
// formed), the localized term, the A/A on /verdict, the straggler term and a
// systematic-imbalance warning naming the rank with its host and device. The
// console prints one verdict table with the lines that say what it speaks for.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/error.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"
#include "results/report_rounds.hpp"
#include "results/round_verdict_file.hpp"
#include "results/verdict_table.hpp"

namespace tpb {
namespace {

RoundInterval interval(double estimate, double low, double high) { return {true, 16, estimate, low, high, 0.92}; }

// A cell whose median and 1 − 2α interval are ln(1 + pct/100).
CellJudgement cell(Outcome outcome, double error_pct, double low_pct, double high_pct, bool falsify_formed = true) {
  CellJudgement c;
  c.outcome = outcome;
  c.rounds = 80;
  c.median_log = std::log1p(error_pct / 100);
  c.error_pct = error_pct;
  c.mean_ratio_pct = error_pct + 1;
  c.hold = interval(c.median_log, std::log1p(low_pct / 100), std::log1p(high_pct / 100));
  c.falsify = falsify_formed ? interval(c.median_log, std::log1p((low_pct - 2) / 100), std::log1p((high_pct + 2) / 100))
                             : RoundInterval{};
  return c;
}

FormKVerdict form(const char* name, int k, std::vector<CellJudgement> cells, bool aa_holds = true) {
  FormKVerdict v;
  v.form = name;
  v.k = k;
  v.judged = judge_form_at_k(std::move(cells), aa_holds);
  v.outcome = v.judged.outcome;
  for (std::size_t i = 0; i < v.judged.cells.size(); ++i) v.sealed_error_pct.push_back(0.5);
  return v;
}

// Grid k {1, 2} × b {1, 4} × c {256}: TP-1 ideal HOLDS; TP-2 ideal FALSIFIED
// with rank 1 systematically slower, replay open (one cell's falsify
// interval not formed), host_floor not applicable.
RoundsEvaluation evaluation() {
  RoundsEvaluation e;
  e.rounds = 80;
  e.blocks = 16;
  e.family_cells = 4;
  e.aa = aa_control({{0, 1, 256, cell(Outcome::holds, 0.5, -1, 2)}, {1, 1, 256, cell(Outcome::holds, 1.5, -1, 3)}});
  e.same_node_spread_pct = interval(9.0, 4.0, 12.0);
  e.cells.push_back(form("ideal", 1, {cell(Outcome::holds, 1.0, -1, 3), cell(Outcome::holds, 2.0, 0, 4)}));
  FormKVerdict ideal2 = form("ideal", 2, {cell(Outcome::falsified, 24, 19, 29), cell(Outcome::holds, 3, 1, 5)});
  ideal2.localized = Localization{"compute", 1300, 1000, 300, 21.5};
  e.cells.push_back(ideal2);
  FormKVerdict replay2 =
      form("replay", 2, {cell(Outcome::inconclusive, 14, 9, 18, false), cell(Outcome::holds, 2, 0, 4)});
  replay2.judged.cells[0].reason = InconclusiveReason::straddles_margin;
  replay2 = form("replay", 2, replay2.judged.cells);
  // Judged as an absolute form here, so that its launch level is written and read back.
  replay2.absolute = true;
  replay2.judged.cells[0].level_log = std::log(1.07);
  replay2.judged.cells[1].level_log = std::log(0.95);
  e.cells.push_back(replay2);
  FormKVerdict na;
  na.form = "host_floor";
  na.k = 2;
  na.outcome = Outcome::not_applicable;
  na.not_applicable_reason = "host-synchronous backend";
  e.cells.push_back(na);
  StragglerTerm term;
  term.straggler_pct = interval(11.0, 9.0, 20.0);
  term.ranks = {{0, interval(0.0, 0.0, 0.5)}, {1, interval(21.0, 18.0, 25.0)}};
  term.systematic_rank = 1;
  e.straggler[2] = term;
  return e;
}

const Grid kGrid{{1, 2}, {1, 4}, {256}};

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

TEST(RoundVerdictFile, WritesEveryCellTheControlsAndTheStragglerWarning) {
  const std::string path = file_with_rank_map("tpb_round_verdict_v6");
  {
    H5File file(path, H5Mode::read_write);
    write_round_verdicts(file, evaluation());
  }
  const H5File file(path, H5Mode::read_only);
  H5Handle ideal2 = file.open_object(verdict_group_path("ideal", 2));
  EXPECT_EQ(read_string_attribute(ideal2.id(), "verdict"), "FALSIFIED");
  EXPECT_EQ(read_string_attribute(ideal2.id(), "reason"), "");
  EXPECT_DOUBLE_EQ(read_double_attribute(ideal2.id(), "mape_pct"), 13.5);
  EXPECT_EQ(read_integer_attribute(ideal2.id(), "worst_cell"), 0);
  EXPECT_NEAR(read_double_attribute(ideal2.id(), "error_ci_high_pct"), 29.0, 1e-9);  // the widest |error| allowed
  EXPECT_EQ(read_double_list_attribute(ideal2.id(), "cell_error_pct"), (std::vector<double>{24.0, 3.0}));
  EXPECT_EQ(read_string_list_attribute(ideal2.id(), "cell_verdict"), (std::vector<std::string>{"FALSIFIED", "HOLDS"}));
  const std::vector<double> low = read_double_list_attribute(ideal2.id(), "cell_hold_low_pct");
  EXPECT_NEAR(low.at(0), 19.0, 1e-9);
  EXPECT_NEAR(low.at(1), 1.0, 1e-9);
  EXPECT_EQ(read_string_attribute(ideal2.id(), "localized_term"), "compute");
  EXPECT_EQ(read_double_attribute(ideal2.id(), "localized_departure_pct"), 21.5);
  // An interval not formed is NaN, never 0.
  H5Handle replay2 = file.open_object(verdict_group_path("replay", 2));
  EXPECT_EQ(read_string_attribute(replay2.id(), "verdict"), "INCONCLUSIVE");
  EXPECT_EQ(read_string_attribute(replay2.id(), "reason"), "straddles_margin");
  EXPECT_TRUE(std::isnan(read_double_list_attribute(replay2.id(), "cell_falsify_low_pct").at(0)));
  // k = 1 measured no term in the rounds: absent, never 0.
  H5Handle ideal1 = file.open_object(verdict_group_path("ideal", 1));
  EXPECT_EQ(read_string_attribute(ideal1.id(), "verdict"), "HOLDS");
  EXPECT_FALSE(has_attribute(ideal1.id(), "localized_term"));
  // Never judged: no figures of a judgement.
  H5Handle na = file.open_object(verdict_group_path("host_floor", 2));
  EXPECT_EQ(read_string_attribute(na.id(), "verdict"), "NOT_APPLICABLE");
  EXPECT_EQ(read_string_attribute(na.id(), "reason"), "host-synchronous backend");
  for (const char* name : {"mape_pct", "cell_error_pct", "error_ci_high_pct", "localized_term"})
    EXPECT_FALSE(has_attribute(na.id(), name)) << name;

  H5Handle root = file.open_object(kVerdictGroup);
  EXPECT_EQ(read_integer_attribute(root.id(), "rule_version"), 6);
  EXPECT_EQ(read_string_attribute(root.id(), "anchor_convention"), "per_round_group_max");
  EXPECT_EQ(read_integer_attribute(root.id(), "blocks"), 16);
  EXPECT_EQ(read_integer_attribute(root.id(), "family_cells"), 4);
  EXPECT_EQ(read_string_attribute(root.id(), "control_aa"), "HOLDS");
  EXPECT_EQ(read_integer_attribute(root.id(), "control_aa_worst_rank"), 1);
  EXPECT_EQ(read_double_attribute(root.id(), "straggler_k2_pct"), 11.0);
  EXPECT_EQ(read_double_list_attribute(root.id(), "straggler_k2_rank_slowdown_pct"), (std::vector<double>{0.0, 21.0}));
  EXPECT_EQ(read_integer_attribute(root.id(), "straggler_k2_systematic_rank"), 1);
  const std::string warning = read_string_attribute(root.id(), "warning_systematic_imbalance_k2");
  EXPECT_NE(warning.find("rank 1 (host nodeB, device cpu (1 OpenMP threads))"), std::string::npos) << warning;
  EXPECT_NE(warning.find("21.0 % of t_step [18.0, 25.0]"), std::string::npos) << warning;
  std::filesystem::remove(path);
}

// The report and a campaign read the verdict back rather than judge it again:
// what is read renders exactly as what was written, intervals not formed
// included, for every registered form at every k.
TEST(RoundVerdictFile, ReadsBackWhatItWrote) {
  Registration registration;
  registration.grid = kGrid;
  RoundsEvaluation written = evaluation();
  std::vector<FormKVerdict> ordered;  // the registered forms in order, k in grid order, as evaluate_rounds lays them
  for (const ModelForm& f : registered_forms(registration))
    for (int k : kGrid.tp) {
      const auto it = std::find_if(written.cells.begin(), written.cells.end(),
                                   [&](const FormKVerdict& v) { return v.form == f.name && v.k == k; });
      FormKVerdict v;
      if (it != written.cells.end()) {
        v = *it;
      } else {
        v.form = f.name;
        v.k = k;
        v.outcome = Outcome::not_applicable;
        v.not_applicable_reason = "not part of this test";
      }
      ordered.push_back(v);
    }
  written.cells = ordered;
  const std::string path = file_with_rank_map("tpb_round_verdict_read_back");
  {
    H5File file(path, H5Mode::read_write);
    write_round_verdicts(file, written);
  }
  const H5File file(path, H5Mode::read_only);
  const RoundsEvaluation read = read_round_verdicts(file, registration);
  const std::vector<std::string> placements = read_rank_placements(file);
  EXPECT_EQ(verdict_table(read, kGrid, TableStyle::markdown), verdict_table(written, kGrid, TableStyle::markdown));
  EXPECT_EQ(verdict_notes(read), verdict_notes(written));
  EXPECT_EQ(rounds_warning_lines(read, placements), rounds_warning_lines(written, placements));
  ASSERT_EQ(read.cells.size(), written.cells.size());
  for (std::size_t i = 0; i < read.cells.size(); ++i) {
    const FormKVerdict &a = read.cells[i], &b = written.cells[i];
    EXPECT_EQ(a.form, b.form);
    EXPECT_EQ(a.k, b.k);
    EXPECT_EQ(a.outcome, b.outcome);
    EXPECT_EQ(a.absolute, b.absolute);
    EXPECT_EQ(a.sealed_error_pct, b.sealed_error_pct);
    ASSERT_EQ(a.judged.cells.size(), b.judged.cells.size());
    for (std::size_t c = 0; c < a.judged.cells.size(); ++c) {
      const CellJudgement &x = a.judged.cells[c], &y = b.judged.cells[c];
      EXPECT_EQ(x.outcome, y.outcome);
      EXPECT_NEAR(x.median_log, y.median_log, 1e-12);
      EXPECT_EQ(x.mean_ratio_pct, y.mean_ratio_pct);
      EXPECT_NEAR(x.level_log, y.level_log, 1e-12);
      EXPECT_EQ(x.falsify.formed, y.falsify.formed);
      if (x.falsify.formed) {
        EXPECT_NEAR(x.falsify.low, y.falsify.low, 1e-12);
      }
    }
  }
  ASSERT_TRUE(read.same_node_spread_pct.has_value());
  EXPECT_EQ(read.same_node_spread_pct->low, 4.0);
  EXPECT_EQ(read.straggler.at(2).ranks.at(1).slowdown_pct.low, 18.0);
  EXPECT_EQ(read.straggler.at(2).systematic_rank, 1);
  EXPECT_EQ(read.aa.cells.size(), 2u);
  std::filesystem::remove(path);
}

// A file with no rounds verdict is refused by name, never rendered as empty.
TEST(RoundVerdictFile, ReadingAFileWithoutAVerdictSaysToRunIt) {
  const std::string path = file_with_rank_map("tpb_round_verdict_none");
  const H5File file(path, H5Mode::read_only);
  Registration registration;
  registration.grid = kGrid;
  try {
    read_round_verdicts(file, registration);
    ADD_FAILURE() << "a file without /verdict was read";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("run 'mpi_bench verdict' first"), std::string::npos) << error.what();
  }
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

// The console prints the verdict table first, a row per (k, form), then what
// it speaks for, the A/A, the negative control and any warning.
TEST(VerdictSummary, OpensWithTheVerdictTableAndSaysItSpeaksForOneLaunch) {
  StudyVerdict verdict;
  verdict.rounds = evaluation();
  verdict.grid = kGrid;
  verdict.rank_placements = {"host nodeA, device d0", "host nodeB, device d1"};
  const std::string text = verdict_summary(verdict);
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[0].rfind("k  form", 0), 0u) << text;
  EXPECT_NE(lines[1].find("ideal"), std::string::npos) << text;
  EXPECT_NE(lines[1].find("HOLDS"), std::string::npos) << text;
  EXPECT_NE(lines[2].find("FALSIFIED"), std::string::npos) << text;
  EXPECT_NE(lines[2].find("b=1 c=256: +24.0 % [+19.0, +29.0] %"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("13.5 %"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("compute +300.0 us (+21.5 % of t_step)"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("INCONCLUSIVE (straddles_margin)"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("NOT_APPLICABLE"), std::string::npos) << lines[4];
  EXPECT_NE(text.find("# This table speaks for one launch"), std::string::npos) << text;
  EXPECT_NE(text.find("A/A control (TP-1 step against TP-1 --no-comm, on each of the 2 rank(s)): HOLDS"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("`host_floor` is NOT_APPLICABLE: host-synchronous backend."), std::string::npos) << text;
  EXPECT_NE(text.find("# WARNING TP-2: rank 1 (host nodeB, device d1) is slower"), std::string::npos) << text;
  EXPECT_EQ(text.find("ENDED EARLY"), std::string::npos) << text;
  verdict.stop_reason = "time budget: test";
  EXPECT_NE(verdict_summary(verdict).find("# ENDED EARLY by the time budget: test"), std::string::npos);
}

TEST(VerdictSummary, AnAaThatDoesNotHoldWithholdsHoldsAndSaysSo) {
  StudyVerdict verdict;
  verdict.rounds = evaluation();
  verdict.grid = kGrid;
  verdict.rounds->aa = aa_control({{0, 1, 256, cell(Outcome::inconclusive, 12, 2, 20)}});
  const std::string text = verdict_summary(verdict);
  EXPECT_NE(text.find("does NOT hold, so no form may HOLD"), std::string::npos) << text;
}

}  // namespace
}  // namespace tpb
