#pragma once
// Collective terms of a TP degree that was not measured, from the sweep fit of
// the nearest measured degree k_m > 1, scaled by the ring algorithm's step
// counts: the latency part (the fit's α at the payload) by (k − 1)/(k_m − 1),
// the bandwidth part (the rest of the fitted time) by ((k − 1)/k) / ((k_m − 1)/k_m).
// Inside the measured range of k it is a scaling between measured degrees;
// outside it, an extrapolation, and said so. Pure math.
#include <string>
#include <vector>

#include "predictor/piecewise_fit.hpp"

namespace tpb {

// The measured degree > 1 nearest to k (the larger on a tie); 0 when none.
int nearest_measured_degree(const std::vector<int>& measured_tp, int k);

// The ring-scaled time of one collective of `bytes` at degree k from the fit of degree k_m.
double ring_scaled_us(const PiecewiseFit& fit_at_km, int km, int k, double bytes);

// Whether k lies outside the measured degrees > 1 (below the smallest or above the largest).
bool outside_measured_range(const std::vector<int>& measured_tp, int k);

// "ring model scaled from the TP-2 sweep fits; EXTRAPOLATED beyond the measured k ∈ [2, 2]".
std::string collective_model_name(const std::vector<int>& measured_tp, int k);

}  // namespace tpb
