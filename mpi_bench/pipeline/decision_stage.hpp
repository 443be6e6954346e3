#pragma once
// decision: after the verdict, what the study means for a deployment of the
// full model: the largest admissible batch per k and context under the memory
// budget, the step time, TPOT and tokens/s per device there (measured, or
// MODELLED with the form and its boundary), and under a TPOT SLO the choice.
// Joins the memory estimator (tp_decoder/) with the pure decision
// (predictor/deployment_decision.hpp) and writes /decision.
#include <optional>

#include "mpi_bench/memory_ledger.hpp"
#include "predictor/deployment_decision.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Of the budget, the share kept free for what the estimator does not count
// (the runtime's own resident memory, allocator rounding): a serving engine's
// 90 % memory utilisation, as `mpi_bench kv` keeps by default.
inline constexpr double kDecisionReservePct = 10;

// Rank 0, file only, after the verdict: reads the registration (with its
// --tpot-slo and --predict-tp degrees), the measured cells, the verdicts'
// standings and /config (the full model, whatever --layers ran), decides
// under `budget` and writes /decision.
DeploymentDecision decision_stage(H5File& file, const MemoryBudget& budget);

// The budget the study ran under, as calibrate stored it in /study
// (results/study_file.hpp's StudyDesign). Empty for a file calibrated before
// the budget was stored.
std::optional<MemoryBudget> read_study_budget(const H5File& file);

}  // namespace tpb
