#pragma once
// `roofline`'s calibration: the ceilings the calibrate stage measured on
// every rank at once (/membw: the read bandwidth and the FMA peak), and a
// TP-k shard's phase ledger priced at them, phase by phase, as an analytic
// calculator prices a step: max((bytes read + bytes written) / bandwidth,
// flops / peak). Reads and writes are both priced against the read bandwidth,
// the one the probe measures; the report says so.
#include <optional>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {

// The ceilings, or none when the calibration measured none (no /membw: the
// CUDA backend has no device probe at calibration yet).
std::optional<RooflineCeilings> read_roofline_ceilings(const H5File& file);

// The ledger's compute phases (the collectives are the sweeps' terms), each
// at max(bytes / read_GBps, flops / peak_GFLOPs), in µs.
double roofline_compute_us(const PhaseLedger& ledger, const RooflineCeilings& ceilings);

}  // namespace tpb
