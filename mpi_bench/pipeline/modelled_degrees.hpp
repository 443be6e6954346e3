#pragma once
// register, for the degrees of --predict-tp: their calibration inputs (the
// replay of their shard shapes on one rank, run by calibrate; t_compute(1);
// collective terms ring-scaled from the nearest measured degree, the model
// named) and every form's prediction, sealed with the registration. Every such
// figure is MODELLED: nothing runs at these degrees.
#include <vector>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Appends the replay datasets it reads to r.source.datasets (the sealed digest).
std::vector<ModelledDegree> register_modelled_degrees(const H5File& file, Registration& r);

}  // namespace tpb
