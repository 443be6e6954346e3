#pragma once
// Kill switches: the MAPE above which a model form is declared FALSIFIED at a
// TP degree. One row per form, fixed at registration and hashed with it.
#include <string>
#include <string_view>
#include <vector>

namespace tpb {

inline constexpr double kDefaultKillSwitchPct = 15.0;

struct KillSwitch {
  std::string form;
  double mape_threshold_pct = kDefaultKillSwitchPct;
};

// One row per registered model form, each at `threshold_pct` (--kill-switch).
// UsageError when the threshold is not a percentage in (0, 1000].
std::vector<KillSwitch> kill_switch_table(double threshold_pct = kDefaultKillSwitchPct);

// The threshold registered for `form`; tpb::Error when the table lacks it.
double kill_switch_for(const std::vector<KillSwitch>& table, std::string_view form);

// The rule, in words, written into every registration and report.
inline constexpr std::string_view kFalsificationRule =
    "A model form is FALSIFIED at TP degree k when its MAPE over the declared batch x context grid, "
    "predicted median t_step against measured median t_step (slowest rank per iteration, median over "
    "iterations), exceeds the kill-switch threshold registered for that form; otherwise it HOLDS.";

}  // namespace tpb
