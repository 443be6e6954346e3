#pragma once
// The cell-level simulator of rule version 6: it draws a cell's per-round
// log-ratios d_r = ln(measured / prediction) directly, with the truth set
// exactly, and judges them with judge_cell and judge_form_at_k as the
// verdict does. "A single launch's truth is that launch's own median": each
// launch's d has a known median (the noise's median is computed, not
// assumed), so an error rate at the boundary K is measured at exactly ±δ.
//
// The noise of one cell over its rounds, in ln:
//   d_r = truth + σ · g_λ(z_r) + σ_L · w_r − (the noise's median),
// z and w AR(1) over rounds with unit variance; g_λ skews (sim_random.hpp);
// w is the machine's slow level, which a paired prediction cancels and an
// absolute one (fixed for the whole launch) does not.
#include <array>
#include <cstdint>
#include <vector>

#include "predictor/decision_rule.hpp"
#include "predictor/random64.hpp"

namespace tpb::sim {

struct CellNoise {
  double log_sd = 0.08;      // σ: the paired ratio's per-round spread
  double lag1 = 0.0;         // ρ of z from one round to the next
  double skew = 0.0;         // λ of g_λ: > 0 gives the right-skewed ratios of the quick start
  double level_log_sd = 0.0; // σ_L: the slow level an absolute prediction carries (0 for paired forms)
  double level_lag1 = 0.0;   // its ρ over rounds
  // Judged at the launch's level (FamilyCase::at_launch_level): the anchor's
  // own noise σ_a, i.i.d. over rounds, in its reading ℓ_r of the level.
  double anchor_log_sd = 0.0;
};

// The median of the noise's stationary distribution, σ·g_λ(z) + σ_L·w with z,
// w independent standard normals: 0 without a level (g keeps z's median),
// found by quadrature and bisection otherwise, to 1e−10 in ln.
double noise_median(const CellNoise& noise);

// `rounds` values of the noise with median exactly 0 (noise_median
// subtracted), the AR(1)s started from their stationary distributions.
std::vector<double> draw_noise(const CellNoise& noise, double median, int rounds, SplitMix64& rng);

// A launch's own shift of every cell's d: the part of its error that is the
// launch's and not the form's.
struct LaunchEffect {
  enum class Kind { none, normal, two_level } kind = Kind::none;
  double log_sd = 0;    // normal: the shift's SD
  double log_step = 0;  // two_level: the launch sits at either of two levels exp(log_step) apart, ±log_step/2
};
double draw_launch_shift(const LaunchEffect& effect, SplitMix64& rng);

// The quick start's family of one form: k {1, 2} × batch {1, 4} × context
// 256, m = 4 cells, k-major (cell = 2·(k − 1) + batch index).
inline constexpr int kFamilyDegrees = 2;
inline constexpr int kFamilyBatches = 2;
inline constexpr int kFamilyCells = kFamilyDegrees * kFamilyBatches;

struct FamilyCase {
  std::array<double, kFamilyCells> truth_log{};  // per cell, the true median of d (±δ at the boundary)
  std::array<CellNoise, kFamilyBatches> noise{}; // per batch, the same at both k
  LaunchEffect launch;
  // true: truth_log is each launch's own median, the launch effect folded
  // in (the rule's claim). false: truth_log is the form's error over
  // launches and each launch adds its shift to it (what one launch cannot
  // tell apart).
  bool truth_is_launch_median = true;
  // An absolute form judged at its launch's level (judge_absolute_cell):
  // each round's level ℓ_r = σ_L·w_r + shift + σ_a·a_r is read from an
  // anchor, and d_r = truth + e_r + (ℓ_r − ℓ̄), e the paired noise (σ, λ, ρ),
  // so truth_log is the form's error at the level as the anchor measured it
  // (the rule's estimand). The anchor's noise is in ℓ and in d alike, so e
  // is what a paired form sees.
  bool at_launch_level = false;
  // With at_launch_level: truth_log is instead the error at the true level
  // σ_L·mean w + shift, which the measured ℓ̄ misses by σ_a·mean a: what the
  // anchor's own noise costs the rule (a stated limit, not a bound it keeps).
  bool truth_at_true_level = false;
  int rounds = 80;
  DecisionRule rule;
};

struct FamilyDraw {
  std::array<FormAtK, kFamilyDegrees> at_k;               // judge_form_at_k, the A/A held
  std::array<double, kFamilyCells> launch_median_log{};   // each cell's truth in this launch
};

// One launch of the family. `medians` holds noise_median of each batch's noise.
FamilyDraw draw_family(const FamilyCase& c, const std::array<double, kFamilyBatches>& medians, SplitMix64& rng);

// What `studies` launches of a case gave.
struct FamilyRates {
  int studies = 0;
  std::array<int, kFamilyDegrees> holds{};      // the form at k HOLDS
  std::array<int, kFamilyDegrees> falsified{};  // the form at k is FALSIFIED
  int falsified_any_k = 0;                      // the family: FALSIFIED at some k
  double rate(int count) const { return static_cast<double>(count) / studies; }
};
FamilyRates run_family(const FamilyCase& c, int studies, std::uint64_t seed);

// How often a cell's two intervals cover its launch's own median, against
// their exact nominal coverage (RoundInterval::coverage, the same at every
// study: it depends on the number of blocks only).
struct Coverage {
  int studies = 0;
  int hold_covered = 0, falsify_covered = 0;
  double hold_nominal = 0, falsify_nominal = 0;
  double hold() const { return static_cast<double>(hold_covered) / studies; }
  double falsify() const { return static_cast<double>(falsify_covered) / studies; }
};
Coverage run_coverage(const CellNoise& noise, int rounds, const DecisionRule& rule, int family_cells, int studies,
                      std::uint64_t seed);

// The binomial Monte-Carlo standard error of a rate p over n studies.
double monte_carlo_se(double p, int n);

}  // namespace tpb::sim
