#pragma once
// Fitted per-phase costs: what one machine charges for a phase, as a function
// of the bytes it moves and the flops it does (the phase ledger's counts), so
// that another model's phases can be priced on the same machine (the
// `transfer` form). One fit per phase class:
//
//   t_phase = intervals · α + max(bytes / β, flops / γ)
//
// α: fixed cost per timeline interval (dispatch, loop setup); β: bytes per µs
// the class streams; γ: flops per µs it computes. Every interval of a phase
// has the same shape, so this is the per-interval roofline summed over them.
// Pure math on plain data: no MPI, CUDA or HDF5.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpb {

// Phases that share one cost model: GEMMs against weights, attention over
// the KV cache, streaming elementwise kernels, and the LM head (one GEMM as
// wide as the vocabulary, whose logits are written at the logits type).
enum class PhaseClass { projection, attention, elementwise, lm_head };
inline constexpr PhaseClass kPhaseClasses[] = {PhaseClass::projection, PhaseClass::attention,
                                              PhaseClass::elementwise, PhaseClass::lm_head};
const char* to_string(PhaseClass phase_class);  // "projection", ...
// UsageError naming the text when it is not a class name.
PhaseClass parse_phase_class(std::string_view name);
// The class of a timed phase by its results-file name ("qkv", "norm", ...);
// none for the collectives, which the sweeps price instead.
std::optional<PhaseClass> phase_class_of(std::string_view phase_name);

// One phase of one calibrated point: its ledger and its measured time.
struct PhaseObservation {
  std::string phase;  // results-file name
  int k = 1;
  int batch = 1;
  int context = 0;
  double intervals = 0;
  double bytes = 0;    // read + written
  double flops = 0;
  double time_us = 0;  // median over the point's iterations
};

struct PhaseClassFit {
  PhaseClass phase_class = PhaseClass::projection;
  double alpha_us = 0;        // per interval
  double beta_GBps = 0;       // 1 GB/s = 10^3 bytes per µs; +inf where the times do not grow with bytes
  // +inf when no point of the fit is compute-bound: every observation is then
  // explained by bytes alone (small batches on a CPU are bandwidth-bound),
  // and the fit cannot say what γ is. `gamma_identified` says which.
  double gamma_GFLOPs = 0;
  bool gamma_identified = false;
  double r2 = 0;                     // weighted like the fit (1 / t²)
  std::vector<PhaseObservation> points;
  std::vector<double> residual_us;   // measured − predicted, one per point

  double predict_us(double intervals, double bytes, double flops) const;
};

struct PhaseCostFit {
  std::vector<PhaseClassFit> classes;  // the classes observed, kPhaseClasses order
  // UsageError naming the class when `phase_class` was not fitted.
  const PhaseClassFit& of(PhaseClass phase_class) const;
};

// Weighted least squares (each point by 1 / t², so a 3 µs norm counts as
// much as a 3 ms GEMM) over every split of the points by arithmetic
// intensity into a bandwidth-bound and a compute-bound side. A split with
// compute-bound points is kept only when it lowers the Bayesian information
// criterion against bytes alone (two more parameters: γ and the split), and
// needs two points on each side; otherwise γ is unidentified. UsageError
// naming the class when it has fewer than 2 points, or a time that is not
// positive.
PhaseClassFit fit_phase_class(PhaseClass phase_class, const std::vector<PhaseObservation>& points);

// Every class that has points among `observations` (grouped by
// phase_class_of; collectives are left out).
PhaseCostFit fit_phase_costs(const std::vector<PhaseObservation>& observations);

}  // namespace tpb
