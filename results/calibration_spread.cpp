#include "results/calibration_spread.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"
#include "predictor/statistics.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

// Per round, the slowest of ranks 0..group−1, each rank's median over the
// iterations of one calibration condition.
std::vector<double> round_medians(const H5File& file, RoundKind kind, int k, int batch, int context, int group) {
  const std::string path =
      round_condition_path(kind, k, batch, context, RoundsPhase::calibrate) + "/" + round_dataset::t_rank_us;
  if (!file.exists(path)) throw UsageError(fmt::format("FILE: {} is missing: calibrate in rounds first", path));
  std::vector<std::uint64_t> dims;
  const std::vector<double> values = file.read_doubles(path, &dims);
  TPB_CHECK(dims.size() == 3, fmt::format("{} is not rounds x iterations x ranks", path));
  TPB_CHECK(dims[2] >= static_cast<std::uint64_t>(group), fmt::format("{} holds {} ranks, not {}", path, dims[2], group));
  std::vector<double> out;
  for (std::uint64_t r = 0; r < dims[0]; ++r) {
    double slowest = 0.0;
    for (std::uint64_t rank = 0; rank < static_cast<std::uint64_t>(group); ++rank) {
      std::vector<double> own;
      for (std::uint64_t i = 0; i < dims[1]; ++i) own.push_back(values[(r * dims[1] + i) * dims[2] + rank]);
      slowest = std::max(slowest, median(own));
    }
    out.push_back(slowest);
  }
  return out;
}

double sample_sd(const std::vector<double>& x) {
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double sum = 0.0;
  for (double v : x) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / static_cast<double>(x.size() - 1));
}

}  // namespace

CalibrationSpread read_calibration_spread(const H5File& file, const Grid& grid) {
  if (!file.exists(kCalibrationRoundsGroup))
    throw UsageError(fmt::format("FILE: {} is missing: the file was calibrated before rounds existed",
                                 kCalibrationRoundsGroup));
  CalibrationSpread spread;
  const std::vector<double> durations =
      file.read_doubles(visit_dataset_path(visit_dataset::duration_us, RoundsPhase::calibrate));
  // The median: a shard's first visit also draws its weights, which no
  // measurement round repeats.
  if (!durations.empty()) spread.seconds_per_visit = median(durations) / 1e6;
  for (int b : grid.batch)
    for (int c : grid.context) {
      const std::vector<double> compute1_rank0 = round_medians(file, RoundKind::step_nocomm, 1, b, c, 1);
      spread.rounds = static_cast<int>(compute1_rank0.size());
      if (spread.rounds < 3) continue;
      double sd = 0.0;
      for (int k : grid.tp) {
        if (k == 1) continue;
        const std::vector<double> compute1 = round_medians(file, RoundKind::step_nocomm, 1, b, c, k);
        const std::vector<double> replay = round_medians(file, RoundKind::replay, k, b, c, k);
        std::vector<double> d;
        for (std::size_t r = 0; r < std::min(replay.size(), compute1.size()); ++r)
          d.push_back(std::log(replay[r]) - std::log(compute1[r]));
        sd = std::max(sd, sample_sd(d));
      }
      if (sd == 0.0) {  // k = 1 alone: two measurements one round apart
        std::vector<double> d;
        for (std::size_t r = 1; r < compute1_rank0.size(); ++r)
          d.push_back(std::log(compute1_rank0[r]) - std::log(compute1_rank0[r - 1]));
        sd = sample_sd(d) / std::sqrt(2.0);
      }
      spread.cell_log_sd.push_back(sd);
    }
  return spread;
}

}  // namespace tpb
