#pragma once
// The chain of custody of a study, one owner for every check of it:
// registration sealed, measured under that registration, after it, on the
// calibration data it was computed from.
#include <string>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"
#include "results/study_file.hpp"

namespace tpb {

// What breaks the seal of `prereg`, or "" when it holds: its text no longer
// hashes to its sealed SHA-256; with a `stamp`, also a measurement that ran
// under another registration, or one that did not start strictly after the
// registration. Every check of a seal (measure, verify, verdict, report, the
// ablation's) calls this one; callers add what they refuse.
std::string seal_problem(const PreregRecord& prereg, const MeasurementStamp* stamp = nullptr);

// The study's registration, checked before it is judged: UsageError naming
// what does not match when the registration is missing, its seal is broken
// (seal_problem, against /step's stamp), /prereg's registered_at is not the
// sealed text's, or the calibration datasets changed since registration.
Registration checked_registration(const H5File& file);

}  // namespace tpb
