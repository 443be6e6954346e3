#include "predictor/paired_errors.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {

PairedRoundErrors paired_round_errors(const std::vector<std::vector<RoundCellTimes>>& rounds) {
  TPB_CHECK(!rounds.empty(), "paired errors of zero rounds");
  const std::size_t cells = rounds.front().size();
  PairedRoundErrors errors;
  for (const auto& round : rounds) {
    TPB_CHECK(!round.empty() && round.size() == cells,
              fmt::format("a round holds {} grid cells, the first holds {}", round.size(), cells));
    std::vector<double> measured, paired, sealed;
    double drift_sum = 0.0;
    for (const RoundCellTimes& cell : round) {
      measured.push_back(cell.measured_us);
      paired.push_back(cell.predicted_paired_us);
      sealed.push_back(cell.predicted_sealed_us);
      drift_sum += signed_error_pct(cell.predicted_sealed_us, cell.measured_us) -
                   signed_error_pct(cell.predicted_paired_us, cell.measured_us);
    }
    errors.paired_pct.push_back(mape_pct(paired, measured));
    errors.sealed_pct.push_back(mape_pct(sealed, measured));
    errors.drift_pct.push_back(drift_sum / static_cast<double>(cells));
  }
  return errors;
}

PairedLogRatios paired_log_ratios(const std::vector<std::vector<RoundCellTimes>>& rounds) {
  TPB_CHECK(!rounds.empty(), "paired log-ratios of zero rounds");
  const std::size_t cells = rounds.front().size();
  PairedLogRatios out;
  for (const auto& round : rounds) {
    TPB_CHECK(!round.empty() && round.size() == cells,
              fmt::format("a round holds {} grid cells, the first holds {}", round.size(), cells));
    std::vector<double> paired, sealed;
    double drift_sum = 0.0;
    for (const RoundCellTimes& cell : round) {
      TPB_CHECK(cell.measured_us > 0 && cell.predicted_paired_us > 0 && cell.predicted_sealed_us > 0,
                fmt::format("log-ratio of measured {} us against predictions {} and {} us", cell.measured_us,
                            cell.predicted_paired_us, cell.predicted_sealed_us));
      paired.push_back(std::log(cell.measured_us / cell.predicted_paired_us));
      sealed.push_back(std::log(cell.measured_us / cell.predicted_sealed_us));
      drift_sum += std::log(cell.predicted_sealed_us / cell.predicted_paired_us) * 100.0;
    }
    out.paired.push_back(std::move(paired));
    out.sealed.push_back(std::move(sealed));
    out.drift_pct.push_back(drift_sum / static_cast<double>(cells));
  }
  return out;
}

}  // namespace tpb
