#pragma once
// Judging a measurement against its registration: for every model form and
// TP degree, predicted vs measured per cell, MAPE over the grid, the verdict
// and the localizing term. Pure function of plain data, so the verdict stage,
// the report and the tests all compute the same numbers from the raw samples.
#include <optional>
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/statistics.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

// What was measured at one cell (k, b, c) of the TP-k step, reduced to one
// value per iteration (the slowest rank's) and then to medians.
struct MeasuredCell {
  int k = 1;
  int batch = 0;
  int context = 0;
  std::vector<double> t_step_us;  // slowest rank per iteration
  double compute_us = 0;          // median t_step of the TP-k --no-comm ablation
  std::optional<double> collective_us;  // median time in the step's collectives (t_ar_insitu + all-gather);
                                        // absent when not measured, never 0
  double host_us = 0;             // median t_host (slowest rank per iteration)
};

// The measured terms compared with a form's predicted shares. The host term
// is the host issue time not covered by the compute and collective time it
// issued, max(0, t_host - compute - collective): zero on a host-synchronous
// backend (its issue loop runs the work), the exposed launch cost on an eager
// GPU step. A collective term that was not measured is left out, and with it
// the host term that is derived from it (exposed_host_us is then absent).
std::optional<double> exposed_host_us(const MeasuredCell& measured);

std::vector<TermComparison> compare_terms(const MeasuredCell& measured, const TermShares& predicted);

struct FormCellResult {
  CellComparison comparison;
  Localization culprit;
};

struct FormDegreeResult {
  DegreeJudgement judgement;
  std::vector<FormCellResult> cells;  // in grid order (batch-major, then context)
  Localization culprit;               // from the grid-mean of each term and of t_step
};

// The bootstrap the registration fixed: 95 % intervals, its resamples and seed.
BootstrapOptions registered_bootstrap(const Registration& registration);

// One result per (form, k), forms in registered_forms() order, k in grid order.
// tpb::Error when a registered cell has no measurement.
std::vector<FormDegreeResult> evaluate_study(const Registration& registration,
                                             const std::vector<MeasuredCell>& measured,
                                             const BootstrapOptions& bootstrap);

// Measured-vs-ideal speedup from k to 2k, for each k with 2k in the grid:
// the ratio of grid-mean measured medians, and the ideal model's ratio.
struct Speedup {
  int k_from = 1;
  int k_to = 2;
  double measured = 0;  // mean median t_step(k) / mean median t_step(2k)
  double ideal = 0;     // same ratio of the ideal form's registered predictions
};
std::vector<Speedup> speedups(const Registration& registration, const std::vector<MeasuredCell>& measured);

}  // namespace tpb
