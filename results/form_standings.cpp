#include "results/form_standings.hpp"

#include <cmath>

#include "predictor/model_forms.hpp"
#include "results/layout.hpp"

namespace tpb {

std::vector<FormStanding> read_form_standings(const H5File& file, const Grid& grid) {
  std::vector<FormStanding> standings;
  for (const auto& form : model_forms())
    for (int k : grid.tp) {
      const std::string path = verdict_group_path(form.name, k);
      if (!file.exists(path)) continue;
      H5Handle group = file.open_object(path);
      FormStanding s{std::string(form.name), k, read_string_attribute(group.id(), "verdict"), std::nullopt};
      // NaN where nothing was judged (NOT_APPLICABLE) or the interval is not formed yet: no bound.
      if (has_attribute(group.id(), "error_ci_high_pct")) {
        const double high = read_double_attribute(group.id(), "error_ci_high_pct");
        if (std::isfinite(high)) s.error_ci_high_pct = high;
      }
      standings.push_back(s);
    }
  return standings;
}

}  // namespace tpb
