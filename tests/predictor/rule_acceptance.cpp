// The acceptance of rule version 6 (issue 42), on both simulators: error
// rates at the boundary K, the intervals' coverage under AR(1), and the
// quick start's HOLD rate at a true error of 0 for several N. Prints one
// Markdown document; no bootstrap anywhere.
//
//   build-sim/tests/predictor/rule_acceptance [studies per case, default 2000]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "log_ratio_generator.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/round_evaluation.hpp"
#include "verdict_lookup.hpp"
#include "predictor/statistics.hpp"
#include "step_time_simulator.hpp"

namespace {

using tpb::sim::CellNoise;
using tpb::sim::FamilyCase;
using tpb::sim::FamilyRates;
using tpb::sim::LaunchEffect;
using tpb::sim::monte_carlo_se;

constexpr int kRounds = 80;  // the quick start's N the boundary cases are judged at

struct NoiseCase {
  std::string name;
  std::array<CellNoise, 2> noise;
  LaunchEffect launch;
  bool at_launch_level = false;      // an absolute form: FamilyCase::at_launch_level
  bool truth_at_true_level = false;  // FamilyCase::truth_at_true_level
};

// The paired ratio's noise: the quick start's spreads per round (14 % at
// b = 1, 7 % at b = 4: issue 42's reading of 36 rounds), i.i.d. normal, then
// with AR(1) ρ = 0.25 and right skew, and with each launch effect.
std::vector<NoiseCase> paired_noise_cases() {
  const CellNoise iid1{.log_sd = 0.14}, iid4{.log_sd = 0.07};
  const CellNoise ar1{.log_sd = 0.14, .lag1 = 0.25, .skew = 0.5}, ar4{.log_sd = 0.07, .lag1 = 0.25, .skew = 0.5};
  return {
      {"i.i.d. normal", {iid1, iid4}, {}},
      {"AR(1) ρ 0.25, skew λ 0.5", {ar1, ar4}, {}},
      {"AR(1) 0.25, skew, launch N(0, 5 %)", {ar1, ar4}, {LaunchEffect::Kind::normal, 0.05, 0}},
      {"AR(1) 0.25, skew, launch two-level 1.44×", {ar1, ar4}, {LaunchEffect::Kind::two_level, 0, std::log(1.44)}},
  };
}

// Absolute predictions (fixed for the launch), judged at the launch's level
// (judge_absolute_cell): the paired noise, the machine's slow level that
// pairing cancels at the fitted common part (fitted_noise: 14.4 %, AR(1) 0.83
// over rounds) or at a fast one, read by an anchor with its own noise σ_a;
// the truth at the level as measured (the rule's estimand), then at the true
// level (what σ_a costs).
std::vector<NoiseCase> absolute_noise_cases() {
  std::vector<NoiseCase> out;
  for (const double anchor : {0.02, 0.05, 0.10})
    for (const double lag1 : {0.83, 0.25})
      for (const bool true_level : {false, true}) {
        const CellNoise b1{.log_sd = 0.14, .lag1 = 0.25, .skew = 0.5, .level_log_sd = 0.1441, .level_lag1 = lag1,
                           .anchor_log_sd = anchor};
        CellNoise b4 = b1;
        b4.log_sd = 0.07;
        char name[160];
        std::snprintf(name, sizeof name, "level 14.4 %% ρ %.2f, anchor σ_a %.0f %%, launch N(0, 5 %%), truth at the %s level",
                      lag1, anchor * 100, true_level ? "true" : "measured");
        out.push_back({name, {b1, b4}, {LaunchEffect::Kind::normal, 0.05, 0}, true, true_level});
      }
  return out;
}

std::string pct(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %%", p * 100.0);
  return text;
}

void row(const std::string& noise, const std::string& cells, double rate, const std::string& bound, int studies) {
  std::printf("| %s | %s | %s | %s | %s |\n", noise.c_str(), cells.c_str(), pct(rate).c_str(), bound.c_str(),
              pct(monte_carlo_se(rate, studies)).c_str());
}

FamilyCase family(const NoiseCase& n, std::array<double, 4> truth_log) {
  return {.truth_log = truth_log, .noise = n.noise, .launch = n.launch, .at_launch_level = n.at_launch_level,
          .truth_at_true_level = n.truth_at_true_level, .rounds = kRounds, .rule = {}};
}

void boundary_tables(const std::vector<NoiseCase>& noises, int studies, const char* title) {
  const double d = tpb::DecisionRule{}.margin_log();
  const double alpha = tpb::DecisionRule{}.family_alpha;
  std::printf("\n### %s: P(HOLDS) at the boundary, bound α = %.2f\n\n", title, alpha);
  std::printf("Cells of the form at k = 2 (b = 1, b = 4) at their launch's own median of d; +K is +δ = ln 1.15.\n\n");
  std::printf("| noise | cells (b=1, b=4) | P(form HOLDS at k=2) | bound | MC SE |\n|---|---|---|---|---|\n");
  const std::pair<const char*, std::array<double, 2>> patterns[] = {
      {"(+K, 0)", {d, 0}}, {"(0, −K)", {0, -d}}, {"(+K, +K)", {d, d}}, {"(−K, −K)", {-d, -d}}};
  std::uint64_t seed = 1000;
  for (const NoiseCase& n : noises)
    for (const auto& [name, cells] : patterns) {
      const FamilyRates r = run_family(family(n, {0, 0, cells[0], cells[1]}), studies, ++seed);
      row(n.name, name, r.rate(r.holds[1]), "≤ 5 %", studies);
    }
  const int m = tpb::sim::kFamilyCells;
  std::printf("\n### %s: P(FALSIFIED) with every cell at exactly ±K, bound α/m = %.4f (m = %d)\n\n", title,
              alpha / m, m);
  std::printf("| noise | cells (k=1: b=1, b=4; k=2: b=1, b=4) | P(FALSIFIED at k=2) | bound | MC SE |\n"
              "|---|---|---|---|---|\n");
  const std::pair<const char*, std::array<double, 4>> signs[] = {
      {"(+K, +K; +K, +K)", {d, d, d, d}}, {"(−K, −K; −K, −K)", {-d, -d, -d, -d}}, {"(+K, −K; −K, +K)", {d, -d, -d, d}}};
  for (const NoiseCase& n : noises)
    for (const auto& [name, cells] : signs) {
      const FamilyRates r = run_family(family(n, cells), studies, ++seed);
      row(n.name, name, r.rate(r.falsified[1]), "≤ 1.25 %", studies);
      row(n.name, std::string(name) + ", the family (some k)", r.rate(r.falsified_any_k), "≤ 5 %", studies);
    }
}

void machine_truth_table(int studies) {
  // What a single launch cannot claim: judged against the form's error over
  // launches, a launch effect moves each launch's own median off the boundary.
  const double d = tpb::DecisionRule{}.margin_log();
  std::printf("\n### Against the form's error over launches (not the launch's own median), cells (+K, +K) at k = 2\n\n");
  std::printf("| noise | launch effect | P(form HOLDS at k=2) | bound | MC SE |\n|---|---|---|---|---|\n");
  std::uint64_t seed = 5000;
  for (const NoiseCase& n : paired_noise_cases()) {
    if (n.launch.kind == LaunchEffect::Kind::none) continue;
    FamilyCase c = family(n, {0, 0, d, d});
    c.truth_is_launch_median = false;
    const FamilyRates r = run_family(c, studies, ++seed);
    row(n.name, "added to the form's +K", r.rate(r.holds[1]), "none: one launch speaks for itself", studies);
  }
}

void coverage_table(int studies) {
  std::printf("\n### Coverage of a cell's intervals, %d studies, N = %d (%d blocks of 5), paired noise 14 %%, "
              "skew λ 0.5\n\n",
              studies, kRounds, kRounds / 5);
  std::printf("| AR(1) ρ | 1 − 2α interval | exact nominal | MC SE | 1 − α/m interval | exact nominal | MC SE |\n"
              "|---|---|---|---|---|---|---|\n");
  std::uint64_t seed = 7000;
  for (double rho : {0.0, 0.1, 0.25, 0.5}) {
    const CellNoise noise{.log_sd = 0.14, .lag1 = rho, .skew = 0.5};
    const tpb::sim::Coverage c = run_coverage(noise, kRounds, {}, tpb::sim::kFamilyCells, studies, ++seed);
    std::printf("| %.2f | %s | %s | %s | %s | %s | %s |\n", rho, pct(c.hold()).c_str(), pct(c.hold_nominal).c_str(),
                pct(monte_carlo_se(c.hold(), studies)).c_str(), pct(c.falsify()).c_str(),
                pct(c.falsify_nominal).c_str(), pct(monte_carlo_se(c.falsify(), studies)).c_str());
  }
}

// The robust SD (1.4826 × the median absolute deviation) over a study's
// rounds of `ideal` k = 2's paired d in grid cell `c`; the mean of these over
// studies is printed beside each case.
double paired_log_sd(const tpb::sim::SimulatedStudy& study, std::size_t c) {
  const int b = tpb::sim::kBatches[c];
  const tpb::CellInputs& sealed = tpb::find_cell_inputs(study.registration, 2, b, tpb::sim::kContext);
  std::vector<double> d;
  for (const tpb::RoundObservation& round : study.rounds)
    d.push_back(std::log(round.step_us.at({2, b, tpb::sim::kContext}) /
                         tpb::predict_ideal(tpb::paired_inputs(sealed, round)).t_step_us));
  const double middle = tpb::median(d);
  for (double& v : d) v = std::abs(v - middle);
  return 1.4826 * tpb::median(d);
}

// `ideal` at k = 2 judged as an absolute form is: on its sealed prediction,
// fixed for the launch (the calibration's anchors), at the launch's level
// (judge_absolute_cell on the rounds' t_compute(1) anchors). Its truth is not
// set exactly here; the cell-level generator measures the boundary rates.
bool sealed_ideal_holds(const tpb::sim::SimulatedStudy& study, bool aa_holds) {
  tpb::ModelForm absolute_ideal = tpb::model_forms().front();  // `ideal`, first in report order
  absolute_ideal.absolute = true;
  std::vector<tpb::CellJudgement> cells;
  for (int b : tpb::sim::kBatches) {
    const tpb::DegreeCell cell{2, b, tpb::sim::kContext};
    std::vector<double> d, levels;
    for (const tpb::RoundObservation& round : study.rounds) {
      d.push_back(std::log(round.step_us.at(cell) /
                           tpb::round_prediction(study.registration, absolute_ideal, cell, round).t_step_us));
      levels.push_back(tpb::round_level(study.registration, cell, round));
    }
    cells.push_back(tpb::judge_absolute_cell(d, levels, study.registration.design.rule,
                                             tpb::form_family_cells(study.registration.grid)));
  }
  return tpb::judge_form_at_k(std::move(cells), aa_holds).outcome == tpb::Outcome::holds;
}

struct StudyCase {
  std::string name;
  tpb::sim::SimulatorConfig config;
};

void quick_start_table(int studies) {
  std::vector<StudyCase> cases;
  cases.push_back({"fitted noise", {}});
  tpb::sim::SimulatorConfig slow;
  slow.slow_rank = {.rank = 1, .slowdown = 0.12, .fraction = 0.85, .sojourn_visits = 20, .launch_probability = 1};
  cases.push_back({"fitted, rank 1 +12 % in 85 % of visits (every launch)", slow});
  tpb::sim::SimulatorConfig levels;
  levels.noise = tpb::sim::two_level_noise();
  levels.slow_rank = slow.slow_rank;
  levels.slow_rank.launch_probability = 0.5;
  cases.push_back({"two levels 1.44×, slow rank 1 in half the launches", levels});
  tpb::sim::SimulatorConfig harsh = slow;
  harsh.noise.step2_skew = 0.5;
  harsh.noise.step2_rounds = {0.03, 0.5};
  harsh.noise.launch_log_sd = 0.05;
  cases.push_back({"slow rank 1, TP-2 skew λ 0.5, TP-2 AR(1) 3 % ρ 0.5, launch N(0, 5 %)", harsh});
  // The spread issue 42 read off its launch (about 14 % and 7 % per round at
  // b = 1 and 4, right-skewed), the slow rank of that launch, and the rest of
  // the harsh case: the TP-2 step's own noise raised until the paired ratio
  // spreads so.
  tpb::sim::SimulatorConfig issue = harsh;
  issue.noise.independent_log_sd[0][tpb::sim::kStep2] = 0.12;
  issue.noise.independent_log_sd[1][tpb::sim::kStep2] = 0.06;
    cases.push_back({"as above, TP-2 own noise 12 % / 6 % (issue 42's spread)", issue});

  std::printf("\n### The quick start at a true error of 0 (study-level simulator, evaluate_rounds)\n\n");
  std::printf("P(the A/A on every rank and `ideal` k = 2 all HOLD); anchors the group max; bound ≥ 90 %%.\n\n");
  std::printf("| noise | N | P(all HOLD) | MC SE | P(A/A holds) | P(`no_speedup` k=2 FALSIFIED) | "
              "paired d, robust SD b=1, b=4 | P(`ideal` k=2 HOLDS on its sealed prediction, at the launch's level) |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (const StudyCase& c : cases)
    for (int n : {40, 60, 80, 100}) {
      tpb::sim::SimulatorConfig config = c.config;
      config.rounds = n;
      int all = 0, aa = 0, negative = 0, sealed = 0;
      std::array<double, tpb::sim::kGridCells> spread{};
      for (int s = 0; s < studies; ++s) {
        const auto study = tpb::sim::simulate_study(config, 90000 + static_cast<std::uint64_t>(s));
        const tpb::RoundsEvaluation e = tpb::evaluate_rounds(study.registration, study.rounds);
        all += tpb::sim::aa_and_ideal_hold(e);
        aa += e.aa.holds;
        negative += tpb::find_verdict(e, "no_speedup", 2).outcome == tpb::Outcome::falsified;
        sealed += sealed_ideal_holds(study, e.aa.holds);
        for (std::size_t cell = 0; cell < tpb::sim::kGridCells; ++cell)
          spread[cell] += paired_log_sd(study, cell) / studies;
      }
      const double p = static_cast<double>(all) / studies;
      std::printf("| %s | %d | %s | %s | %s | %s | %.3f, %.3f | %s |\n", c.name.c_str(), n, pct(p).c_str(),
                  pct(monte_carlo_se(p, studies)).c_str(), pct(static_cast<double>(aa) / studies).c_str(),
                  pct(static_cast<double>(negative) / studies).c_str(), spread[0], spread[1],
                  pct(static_cast<double>(sealed) / studies).c_str());
      std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv) {
  const int studies = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::string section = argc > 2 ? argv[2] : "all";
  if (studies < 1 || (section != "all" && section != "absolute")) {
    std::fprintf(stderr, "usage: rule_acceptance [studies per case, default 2000] [all|absolute]\n");
    return 2;
  }
  if (section == "absolute") {
    boundary_tables(absolute_noise_cases(), studies, "Absolute forms");
    quick_start_table(studies);
    return 0;
  }
  std::printf("## Rule version 6 acceptance: %d studies per case, α = 0.05, K = 15 %%, blocks of 5, m = 4\n",
              studies);
  boundary_tables(paired_noise_cases(), studies, "Paired forms");
  machine_truth_table(studies);
  coverage_table(studies);
  coverage_table(10 * studies);  // at a third of the MC SE: is the gap under 1 point?
  boundary_tables(absolute_noise_cases(), studies, "Absolute forms");
  quick_start_table(studies);
  return 0;
}
