#pragma once
// The error of a form at one TP degree, median first: per grid cell c and
// round r the paired log-ratio d[r][c] = ln(measured / predicted); the cell's
// error is exp(median over rounds of d[·][c]) − 1; the form's error is the
// mean over cells of |cell error| (the MAPE of the central estimates). Noise
// widens the interval but does not inflate the estimate, as a per-round MAPE
// would (it estimates the size of |error + noise|). The interval resamples
// whole rounds, so the cells of a round stay paired.
#include <cstdint>
#include <vector>

#include "predictor/round_interval.hpp"

namespace tpb {

// rounds × grid cells of ln(measured / predicted), rounds in execution order.
using LogRatios = std::vector<std::vector<double>>;

struct FormError {
  double error_pct = 0;                // mean over cells of |cell error|
  double signed_error_pct = 0;         // mean over cells of the signed cell error: > 0 when measured is slower
  std::vector<double> cell_error_pct;  // per cell, signed, in grid order
};

// The estimate on every round. `rounds` non-empty, every round the same
// non-zero number of cells, every value finite.
FormError form_error(const LogRatios& rounds);

struct RoundResampling {
  int resamples = 10000;  // at least this many; more when α is small (resamples_for)
  std::uint64_t seed = 0x7470626eULL;
};

// The resamples an interval at `alpha` uses: at least `sealed`, and enough
// that each tail holds 25 resampled values; capped at 200,000.
int resamples_for(int sealed, double alpha);

// Two-sided percentile interval of error_pct at level 1 − alpha, from
// resampling whole rounds with replacement (the same resampled rounds for
// every cell). `signed_low`/`signed_high` bound signed_error_pct alike. Not
// formed when there are fewer rounds than min_rounds_for_median_interval(alpha)
// (too few for the median's distribution-free interval at this α, so a
// bootstrap there would only restate a handful of values) or when the
// resamples a tail needs exceed the cap.
// `p_exceeds` is the share of resampled error_pct strictly above
// `threshold_pct`, reported beside a verdict and never deciding it.
// `level_shifts`, when not empty, holds ln-level changes of the predictions
// (rule version 4: one per round, centred on 0; version 5: every pair of
// rounds' difference): each resample also draws one of them and
// subtracts it from every cell's median, so the interval holds the
// uncertainty of where the predictions' level sits as well as that of the
// rounds. The calibration-time evaluation uses it (rule versions 4, 5): its
// sealed numbers stand at one level of a machine whose level moves.
struct FormErrorInterval {
  RoundInterval unsigned_error;  // estimate = error_pct; coverage = the nominal 1 − alpha
  double signed_low = 0;
  double signed_high = 0;
  double p_exceeds = 0;
  FormError estimate;
};
FormErrorInterval form_error_interval(const LogRatios& rounds, double alpha, const RoundResampling& resampling,
                                      double threshold_pct, const std::vector<double>& level_shifts = {});

}  // namespace tpb
