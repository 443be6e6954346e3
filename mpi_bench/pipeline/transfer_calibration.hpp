#pragma once
// The `transfer` form's calibration: model A's study file, read at B's
// registration. A's per-phase timings (its TP-1 --no-comm point and its shard
// replays, the phases the calibration already times) are fitted per phase
// class against A's phase ledger, and B's grid cells are priced with that fit
// from B's own ledger. B's collective terms stay B's own (its sweeps).
#include <string>
#include <string_view>

#include "predictor/registration.hpp"
#include "predictor/transfer_source.hpp"
#include "results/h5_file.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// Rank 0. `b_file` is B's calibrated study, `b` its workload and grid as
// registered. UsageError, one line naming the value, when A's file is
// missing or not a calibrated study with phase timings, when A ran on
// another machine (CPU model, core count, backend or collective), or when a
// batch or context of B's grid lies outside A's.
TransferSource calibrate_transfer(const H5File& b_file, const Registration& b, const std::string& a_path);

// Any rank, before B calibrates: the same refusals for what is known then
// (A's file, that it is a calibrated study, its backend and collective, B's
// grid inside A's), so that a bad --transfer-from costs no calibration. The
// CPU is checked at registration, against what B's calibration recorded.
// A calibrated study's model as its phase ledger needs it: the config at the
// layers run, and the storage types of its backend.
struct LedgerModel {
  ModelConfig config;
  MemoryTypes types;
};
LedgerModel read_ledger_model(const H5File& file, const Workload& w);

// The distinct experts each layer touched at a point (mixture-of-experts
// models; routing is fixed per point): the row sums of its 0/1 table. Empty
// for a dense model; UsageError naming the file when it lacks the table.
std::vector<int> experts_touched(const H5File& file, const std::string& point, const ModelConfig& config);

void precheck_transfer_source(const std::string& a_path, const Grid& b_grid, std::string_view b_backend,
                              std::string_view b_collective);

}  // namespace tpb
