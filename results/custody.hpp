#pragma once
// Checks that a results file may be judged: UsageError naming what does not
// match when the registration is missing, its text no longer matches its
// SHA-256, the measurement ran under another registration (or none), the
// registration is newer than the measurement, or the calibration datasets
// changed since registration. Returns the parsed registration.
#include "predictor/registration.hpp"
#include "results/h5_file.hpp"

namespace tpb {

Registration checked_registration(const H5File& file);

}  // namespace tpb
