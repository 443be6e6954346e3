#pragma once
// Verdicts and localization: the kill switches (the MAPE above which a model
// form is declared FALSIFIED at a TP degree, one row per form, fixed at
// registration and hashed with it), per (model form, TP degree) the MAPE over
// the declared grid against its kill switch, and the term that explains the
// residual.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/statistics.hpp"

namespace tpb {

inline constexpr double kDefaultKillSwitchPct = 15.0;

struct KillSwitch {
  std::string form;
  double mape_threshold_pct = kDefaultKillSwitchPct;
};

// One row per registered model form (`transfer` among them when
// `with_transfer`), each at `threshold_pct` (--kill-switch).
// UsageError when the threshold is not a percentage in (0, 1000].
std::vector<KillSwitch> kill_switch_table(double threshold_pct = kDefaultKillSwitchPct, bool with_transfer = false,
                                          bool with_roofline = false);

// The threshold registered for `form`; tpb::Error when the table lacks it.
double kill_switch_for(const std::vector<KillSwitch>& table, std::string_view form);

enum class Verdict { holds, falsified };
std::string_view to_string(Verdict verdict);  // "HOLDS" / "FALSIFIED"

// HOLDS when mape_pct <= threshold_pct (the threshold itself still holds).
Verdict judge(double mape_pct, double threshold_pct);

// One cell (b, c) of the grid at one TP degree, for one model form.
struct CellComparison {
  int batch = 0;
  int context = 0;
  double predicted_us = 0;
  double measured_us = 0;  // median of the slowest-rank t_step per iteration
  ConfidenceInterval measured_ci;
  double signed_error_pct = 0;
};

struct DegreeJudgement {
  std::string form;
  int k = 1;
  double mape_pct = 0;
  double threshold_pct = 0;
  Verdict verdict = Verdict::holds;
};

// MAPE of `cells` against the threshold: the verdict of one (form, k).
DegreeJudgement judge_degree(std::string form, int k, std::span<const CellComparison> cells, double threshold_pct);

// One term of the step as measured and as the form predicted it.
struct TermComparison {
  std::string term;          // "compute", "collective", "host"
  double measured_us = 0;
  double predicted_us = 0;
};

struct Localization {
  std::string term;
  double measured_us = 0;
  double predicted_us = 0;
  double departure_us = 0;   // measured - predicted: positive when the term costs more than predicted
  double departure_pct = 0;  // departure in percent of the measured t_step
};

// The term whose measured value departs most (in absolute µs) from the share
// the form predicted for it. Ties go to the earlier term. `terms` non-empty,
// measured_t_step_us > 0.
Localization localize(std::span<const TermComparison> terms, double measured_t_step_us);

}  // namespace tpb
