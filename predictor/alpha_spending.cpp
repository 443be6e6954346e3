#include "predictor/alpha_spending.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.hpp"

namespace tpb {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double normal_quantile(double p) {
  TPB_CHECK(p > 0.0 && p < 1.0, fmt::format("normal quantile of {} outside (0, 1)", p));
  // Bisection on the distribution function: slow but exact to the double's
  // resolution and free of any approximation's error bound.
  double low = -40.0, high = 40.0;
  for (int i = 0; i < 200 && high - low > 1e-13; ++i) {
    const double middle = 0.5 * (low + high);
    (normal_cdf(middle) < p ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

double obrien_fleming_spent(double family_alpha, double information) {
  TPB_CHECK(family_alpha > 0.0 && family_alpha < 1.0, fmt::format("alpha {} outside (0, 1)", family_alpha));
  if (information <= 0.0) return 0.0;
  if (information >= 1.0) return family_alpha;
  const double z = normal_quantile(1.0 - family_alpha / 2.0);
  // 2·(1 − Φ(x)) = erfc(x / √2), without the cancellation of 1 − Φ, which
  // would read an early look's tiny share as exactly 0.
  return std::erfc(z / std::sqrt(information) / std::numbers::sqrt2);
}

double look_alpha(double family_alpha, const std::vector<int>& checkpoints, int rounds_done, bool final_look) {
  TPB_CHECK(!checkpoints.empty() && rounds_done > 0,
            fmt::format("a look after {} rounds with {} checkpoints", rounds_done, checkpoints.size()));
  const double planned = checkpoints.back();
  // The checkpoint before this look: every earlier checkpoint was a look.
  double spent_before = 0.0;
  for (int checkpoint : checkpoints)
    if (checkpoint < rounds_done) spent_before = obrien_fleming_spent(family_alpha, checkpoint / planned);
  const bool is_checkpoint = std::find(checkpoints.begin(), checkpoints.end(), rounds_done) != checkpoints.end();
  if (final_look || !is_checkpoint) return family_alpha - spent_before;
  return obrien_fleming_spent(family_alpha, rounds_done / planned) - spent_before;
}

}  // namespace tpb
