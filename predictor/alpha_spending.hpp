#pragma once
// How a study spends its family-wise α across the looks it takes at its
// sealed checkpoints: the Lan–DeMets spending function of O'Brien–Fleming
// type, so that an early look costs almost nothing and the last keeps nearly
// the whole α. Within a look, α is split over the judged cells (Bonferroni).
// Each look's share is used as that look's own level; the shares add up to
// the family α, so the union bound holds whatever the correlation between
// looks (conservative, never anti-conservative).
#include <vector>

namespace tpb {

// Standard normal distribution function and its inverse (p in (0, 1)).
double normal_cdf(double z);
double normal_quantile(double p);

// α spent by information fraction t ∈ [0, 1] under the O'Brien–Fleming-type
// spending function 2·(1 − Φ(z_{1−α/2} / √t)): 0 at t = 0, α at t = 1.
double obrien_fleming_spent(double family_alpha, double information);

// The α a look may use: the spending function's increment from the previous
// checkpoint to `rounds_done`, with information = rounds / the last
// checkpoint (the planned rounds). The look that ends the study, whatever
// ends it (the last checkpoint, the time budget, a stop between
// checkpoints), spends everything not spent before it (`final_look`). A look
// that is not a checkpoint is always final. Checkpoints positive, strictly
// increasing; rounds_done > 0.
double look_alpha(double family_alpha, const std::vector<int>& checkpoints, int rounds_done, bool final_look);

}  // namespace tpb
