#pragma once
// Which term broke, from the rounds: per (form, k > 1), each term the rounds
// measure against the share the form predicted for it on the same round's
// anchors, as a grid mean of medians over rounds. The terms: compute (the
// TP-k step with its collectives ablated, its slowest rank: the anchors are
// the group's slowest too, so a straggler is priced in compute once, not
// again as a term of its own) and collective (the slowest rank's time inside
// the collectives: it waits for nobody). The host term is not measured per
// round (the TP-k step's issue time is not split from its work there), so it
// is left out rather than read as 0.
#include <optional>
#include <vector>

#include "predictor/model_forms.hpp"
#include "predictor/registration.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

struct RoundObservation;

// Absent when the rounds measured no term of (form, k): k = 1 with no
// collective, or a backend that did not time its collectives per rank.
std::optional<Localization> localize_rounds(const Registration& registration, const ModelForm& form, int k,
                                            const std::vector<RoundObservation>& rounds);

}  // namespace tpb
