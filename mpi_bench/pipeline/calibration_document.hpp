#pragma once
// A calibrated study as one JSON document (docs/CALIBRATION.md): the machine,
// the model, the grid, the measured bandwidths, the collective sweeps' fits
// and, per calibrated cell, the anchors the registration uses, the per-phase
// timings and the phase ledger of the cell's shard. What a latency model
// outside tpbench calibrates on before it predicts this machine's cells.
#include <nlohmann/json.hpp>

#include "results/h5_file.hpp"

namespace tpb {

inline constexpr const char* kCalibrationSchema = "tpbench-calibration";
// Stable across tpbench versions: a field is only ever added, never renamed,
// removed or given another meaning, without a new version.
inline constexpr int kCalibrationSchemaVersion = 1;

// Reads `file` only. UsageError, one line naming what is missing, for a file
// that holds no study or whose calibration has not finished.
nlohmann::ordered_json calibration_document(const H5File& file);

}  // namespace tpb
