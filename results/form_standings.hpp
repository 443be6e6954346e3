#pragma once
// Where each (form, k) stands after the verdict, as the decision reads it:
// /verdict/{form}/k{K} attributes `verdict` and `error_ci_high_pct` (the upper
// end of the interval of the form's error, in percent). A verdict group
// without `error_ci_high_pct` (written by a verdict that judged a point, the
// MAPE, not an interval) gives a standing with no bound, which the decision
// never uses for a modelled figure.
#include <vector>

#include "predictor/deployment_decision.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// One standing per (form, k) of the grid whose verdict group exists, forms in
// model_forms() order.
std::vector<FormStanding> read_form_standings(const H5File& file, const Grid& grid);

}  // namespace tpb
