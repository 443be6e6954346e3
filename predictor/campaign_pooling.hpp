#pragma once
// A campaign's pooled verdict (rule version 6 over launches): the launch is
// the unit of replication. Per cell (form, k, batch, context) each launch
// gives its median of d = ln(measured / paired prediction)
// (CellJudgement::median_log); the campaign's estimand is their mean over the
// L launches, judged with Student's t interval on L − 1 degrees of freedom:
//   HOLDS       the 1 − 2α interval lies inside (−δ, δ) (two one-sided tests);
//   FALSIFIED   the 1 − α/m interval lies wholly outside [−δ, δ], m the form's
//               cells over every k;
//   INCONCLUSIVE otherwise; too_few_rounds (too few launches) below L = 2.
// The form at k is judge_form_at_k over the pooled cells, and the pooled A/A
// (each rank's cell, a family of one) gates HOLDS as in one launch.
// t quantiles come from Boost.Math (Debian's libboost-dev, header only).
#include <span>
#include <vector>

#include "predictor/decision_rule.hpp"

namespace tpb {

// The q-quantile of Student's t with `df` ≥ 1 degrees of freedom, q in (0, 1).
double student_t_quantile(double q, int df);

struct PooledCell {
  CellJudgement judged;               // rounds = L; median_log = the mean over launches; intervals on t
  std::vector<double> launch_median_log;  // each launch's median of d, in launch order
  double between_sd_log = 0;          // the SD over launches (L − 1 in the denominator); NaN below L = 2
};

// One cell pooled over its launches' medians (non-empty, finite); m ≥ 1.
PooledCell pool_cell(std::span<const double> launch_median_log, const DecisionRule& rule, int family_cells);

// What a campaign of L launches at a between-launch SD `sd_log` (in ln) can
// decide, in percent error (exp(·) − 1) × 100:
//   the smallest |error| whose 1 − α/m interval, centred on it, clears the
//   margin (FALSIFIED): δ + t(1 − α/(2m), L − 1) · sd/√L;
//   the largest |error| whose 1 − 2α interval stays inside it (HOLDS):
//   δ − t(1 − α, L − 1) · sd/√L, NaN when that is not above 0 (no error can HOLD).
// L ≥ 2 and sd ≥ 0.
double smallest_falsifiable_pct(int launches, double sd_log, const DecisionRule& rule, int family_cells);
double largest_holdable_pct(int launches, double sd_log, const DecisionRule& rule);

// The fewest launches (≥ 2) for which one cell HOLDS at a true error of 0
// with probability `power`, at a between-launch SD `sd_log`: the smallest L
// with (t(1 − α, L − 1) + t(1 − (1 − power)/2, L − 1)) · sd/√L ≤ δ (the TOST
// sample size at a true difference of 0); `max_launches` + 1 when none up to
// it is enough.
int launches_for_hold_power(double sd_log, const DecisionRule& rule, double power = 0.8, int max_launches = 1000);

}  // namespace tpb
