#pragma once
// `roofline`'s calibration: the ceilings the calibrate stage measured on
// every rank at once (roofline_probe.hpp), and a TP-k shard's phase ledger
// priced at them, phase by phase, as an analytic calculator prices a step:
// max((bytes read + bytes written) / bandwidth, flops / peak). On the cpu
// backend the bandwidth is a read bandwidth, so writes are priced as reads;
// on cuda it is a copy's, which counts bytes read plus bytes written. The
// report says which.
#include <optional>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {

// The ceilings: /membw's (cpu), or /d2d's and /gemm's (cuda); none when the
// calibration measured neither pair.
std::optional<RooflineCeilings> read_roofline_ceilings(const H5File& file);

// The ledger's compute phases (the collectives are the sweeps' terms), each
// at max(bytes / bandwidth_GBps, flops / peak_GFLOPs), in µs.
double roofline_compute_us(const PhaseLedger& ledger, const RooflineCeilings& ceilings);

}  // namespace tpb
