#include "results/ablation_file.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "results/custody.hpp"
#include "results/layout.hpp"
#include "results/step_point.hpp"

namespace tpb {
namespace {

std::string under(std::string_view collective, StepRoot root) {
  return ablation_root_path(collective) + step_root_path(root);
}
std::string prereg_text(std::string_view collective) { return ablation_root_path(collective) + kPreregText; }

}  // namespace

void write_ablation_prereg(H5File& file, std::string_view collective, const PreregRecord& record) {
  {
    H5Handle root = file.group(ablation_root_path(collective));
    write_attribute(root.id(), collective_attribute::name, std::string(collective));
  }
  write_prereg(file, record, ablation_root_path(collective));
}

bool has_ablation(const H5File& file, std::string_view collective) {
  return has_prereg(file, ablation_root_path(collective));
}

PreregRecord read_ablation_prereg(const H5File& file, std::string_view collective) {
  if (!has_ablation(file, collective))
    throw UsageError(fmt::format("FILE: '{}' holds no {} ablation ({} is missing)", file.path(), collective,
                                 prereg_text(collective)));
  return read_prereg(file, ablation_root_path(collective));
}

MeasurementStamp read_ablation_measurement_stamp(const H5File& file, std::string_view collective) {
  const std::string path = under(collective, StepRoot::step);
  if (!file.exists(path))
    throw UsageError(fmt::format("FILE: '{}' holds no {} ablation steps ({} is missing)", file.path(), collective,
                                 path));
  H5Handle group = file.open_object(path);
  return {read_string_attribute(group.id(), "prereg_sha256"), read_string_attribute(group.id(), "measure_started_at")};
}

std::vector<MeasuredCell> read_ablation_cells(const H5File& file, std::string_view collective, const Grid& grid) {
  std::vector<MeasuredCell> cells;
  for (int k : grid.tp)
    for (int b : grid.batch)
      for (int c : grid.context) {
        const std::string step = ablation_root_path(collective) + step_point_path(StepRoot::step, k, b, c);
        const std::string nocomm = step_point_path(StepRoot::step_nocomm, k, b, c);
        cells.push_back({k, b, c, group0_slowest_per_iteration(file, step, step_dataset::t_step_us),
                         slowest_rank_median(file, nocomm, step_dataset::t_step_us), collective_median_us(file, step),
                         slowest_rank_median(file, step, step_dataset::t_host_us)});
      }
  return cells;
}

Registration checked_ablation_registration(const H5File& file, std::string_view collective) {
  const PreregRecord prereg = read_ablation_prereg(file, collective);
  const MeasurementStamp stamp = read_ablation_measurement_stamp(file, collective);
  const std::string problem = seal_problem(prereg, &stamp);
  if (!problem.empty())
    throw UsageError(fmt::format("FILE: refusing to judge the {} ablation in '{}': {}", collective, file.path(),
                                 problem));
  return parse_registration(prereg.text);
}

}  // namespace tpb
