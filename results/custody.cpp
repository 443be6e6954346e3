// The chain of custody of a study: registration sealed, measured under that
// registration, after it, on the calibration data it was computed from.
#include "results/custody.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "predictor/sha256.hpp"
#include "results/study_file.hpp"

namespace tpb {

Registration checked_registration(const H5File& file) {
  const PreregRecord prereg = read_prereg(file);
  const std::string actual = sha256_hex(prereg.text);
  if (actual != prereg.sha256)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': the registration text hashes to {} but was sealed "
                                 "as {} (it was edited after registration)",
                                 file.path(), actual, prereg.sha256));
  const MeasurementStamp stamp = read_measurement_stamp(file);
  if (stamp.prereg_sha256 != prereg.sha256)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': the measurement ran under registration {} but the "
                                 "file now holds registration {}",
                                 file.path(), stamp.prereg_sha256, prereg.sha256));
  const Registration r = parse_registration(prereg.text);
  if (r.registered_at != prereg.registered_at)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': /prereg says registered at {} but the sealed text "
                                 "says {}",
                                 file.path(), prereg.registered_at, r.registered_at));
  if (r.registered_at > stamp.started_at)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': the registration ({}) is newer than the measurement "
                                 "({}); predictions must be registered before measuring",
                                 file.path(), r.registered_at, stamp.started_at));
  const std::string calibration = datasets_sha256(file, r.source.datasets);
  if (calibration != r.source.datasets_sha256)
    throw UsageError(fmt::format("FILE: refusing to judge '{}': the calibration datasets hash to {} but were "
                                 "registered as {} (changed after registration)",
                                 file.path(), calibration, r.source.datasets_sha256));
  return r;
}

}  // namespace tpb
