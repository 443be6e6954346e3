#include "results/custody.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "predictor/sha256.hpp"

namespace tpb {

std::string seal_problem(const PreregRecord& prereg, const MeasurementStamp* stamp) {
  const std::string actual = sha256_hex(prereg.text);
  if (actual != prereg.sha256)
    return fmt::format("the registration text hashes to {}, not its sealed sha256 {} (it was edited after "
                       "registration)",
                       actual, prereg.sha256);
  if (!stamp) return "";
  if (stamp->prereg_sha256 != prereg.sha256)
    return fmt::format("the measurement ran under registration {} but the file now holds registration {}",
                       stamp->prereg_sha256, prereg.sha256);
  // The seal says the predictions existed before the first measured step.
  // Both times are UTC to the microsecond in one fixed-width format
  // (utc_timestamp_us), so text order is time order. An equal timestamp is
  // refused: within one clock reading the order of the two is not shown, and
  // custody accepts only what it can show.
  if (!(prereg.registered_at < stamp->started_at))
    return fmt::format("the registration ({}) is not older than the measurement ({}); predictions must be "
                       "registered before measuring",
                       prereg.registered_at, stamp->started_at);
  return "";
}

Registration checked_registration(const H5File& file) {
  const PreregRecord prereg = read_prereg(file);
  const MeasurementStamp stamp = read_measurement_stamp(file);
  const std::string problem = seal_problem(prereg, &stamp);
  if (!problem.empty()) throw UsageError(fmt::format("FILE: refusing to judge '{}': {}", file.path(), problem));
  const Registration r = parse_registration(prereg.text);
  if (r.registered_at != prereg.registered_at)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': /prereg says registered at {} but the sealed text "
                                 "says {}",
                                 file.path(), prereg.registered_at, r.registered_at));
  const std::string calibration = datasets_sha256(file, r.source.datasets);
  if (calibration != r.source.datasets_sha256)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': the calibration datasets hash to {} but were "
                                 "registered as {} (changed after registration)",
                                 file.path(), calibration, r.source.datasets_sha256));
  return r;
}

}  // namespace tpb
