#include "results/ablation_file.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "results/custody.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

std::string under(std::string_view collective, StepRoot root) {
  return ablation_root_path(collective) + step_root_path(root);
}
std::string prereg_text(std::string_view collective) { return ablation_root_path(collective) + kPreregText; }

// {root}/step: the ablation registration's hash and when its TP-k steps began
// (written by write_measurement_stamp under the ablation root).
MeasurementStamp read_ablation_measurement_stamp(const H5File& file, std::string_view collective) {
  const std::string path = under(collective, StepRoot::step);
  if (!file.exists(path))
    throw UsageError(fmt::format("FILE: '{}' holds no {} ablation steps ({} is missing)", file.path(), collective,
                                 path));
  H5Handle group = file.open_object(path);
  return {read_string_attribute(group.id(), "prereg_sha256"), read_string_attribute(group.id(), "measure_started_at")};
}

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
