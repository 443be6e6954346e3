#pragma once
// The collective ablation's part of a study file, below
// ablation_root_path(collective) (layout.hpp): its registration, its
// measurement stamp and its checked registration (its TP-k cells are
// read_measured_cells under the same root). Writers run on rank 0.
#include <string>
#include <string_view>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/h5_file.hpp"
#include "results/study_file.hpp"

namespace tpb {

// {root}/prereg: the ablation's registration text, its SHA-256 and timestamp.
void write_ablation_prereg(H5File& file, std::string_view collective, const PreregRecord& record);
bool has_ablation(const H5File& file, std::string_view collective);
PreregRecord read_ablation_prereg(const H5File& file, std::string_view collective);  // UsageError when absent


// The ablation's registration, its seal checked as the study's is
// (seal_problem, against the ablation's own stamp): UsageError naming what
// does not hold.
Registration checked_ablation_registration(const H5File& file, std::string_view collective);

}  // namespace tpb
