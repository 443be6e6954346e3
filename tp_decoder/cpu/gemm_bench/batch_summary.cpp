#include "tp_decoder/cpu/gemm_bench/batch_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/samples.hpp"

namespace tpb::gemm_bench {
namespace {

std::string least_median_most(const std::vector<double>& v) {
  return fmt::format("{:.3f} {:.3f} {:.3f}", *std::min_element(v.begin(), v.end()), median(v),
                     *std::max_element(v.begin(), v.end()));
}

}  // namespace

void BatchSummary::add(const std::string& model, int m, double kept, double overlap) {
  auto it = std::find_if(models_.begin(), models_.end(), [&](const auto& entry) { return entry.first == model; });
  if (it == models_.end()) it = models_.insert(models_.end(), {model, {}});
  Figures& figures = it->second[m];
  figures.kept.push_back(kept);
  figures.overlap.push_back(overlap);
  figures.kept_over_overlap.push_back(kept / overlap);
}

std::string BatchSummary::format() const {
  std::string text;
  for (const auto& [model, by_m] : models_) {
    text += fmt::format("# {}: fractions of the limit as least / median / most over the shapes\n", model);
    text += fmt::format("# {:>3} {:>6}  {:<17}  {:<17}  {}\n", "m", "shapes", "kept", "overlap",
                        "kept/overlap (median)");
    for (const auto& [m, figures] : by_m)
      text += fmt::format("# {:>3} {:>6}  {:<17}  {:<17}  {:.3f}\n", m, figures.kept.size(),
                          least_median_most(figures.kept), least_median_most(figures.overlap),
                          median(figures.kept_over_overlap));
  }
  return text;
}

}  // namespace tpb::gemm_bench
