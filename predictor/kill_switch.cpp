#include "predictor/kill_switch.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"

namespace tpb {

std::vector<KillSwitch> kill_switch_table(double threshold_pct) {
  if (!std::isfinite(threshold_pct) || threshold_pct <= 0.0 || threshold_pct > 1000.0)
    throw UsageError(fmt::format("--kill-switch: '{}' is not a MAPE threshold in percent (0 < PCT <= 1000)",
                                 threshold_pct));
  std::vector<KillSwitch> table;
  for (const auto& form : model_forms()) table.push_back({std::string(form.name), threshold_pct});
  return table;
}

double kill_switch_for(const std::vector<KillSwitch>& table, std::string_view form) {
  for (const auto& row : table)
    if (row.form == form) return row.mape_threshold_pct;
  throw_error("tpbench", 1, fmt::format("no kill switch registered for model form '{}'", form), __FILE__, __LINE__);
}

}  // namespace tpb
