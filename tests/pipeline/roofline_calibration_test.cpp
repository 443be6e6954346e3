// `roofline` prices each compute phase of a ledger at the slower of its two
// ceilings, and leaves the collectives to the sweeps.
#include <gtest/gtest.h>

#include "mpi_bench/pipeline/roofline_calibration.hpp"

namespace tpb {
namespace {

TEST(RooflineCalibration, EachPhaseAtTheSlowerCeilingAndNoCollectivePhase) {
  PhaseLedger ledger;
  auto& qkv = ledger.phases[static_cast<std::size_t>(Phase::qkv)];
  qkv.bytes_read = 9000;  // + 1000 written: 10^4 B at 10 GB/s = 1 µs; 10^3 flops at 100 GFLOP/s = 0.01 µs
  qkv.bytes_written = 1000;
  qkv.flops = 1000;
  auto& attention = ledger.phases[static_cast<std::size_t>(Phase::attention)];
  attention.bytes_read = 1000;  // 0.1 µs of bytes; 10^6 flops = 10 µs
  attention.flops = 1000000;
  auto& all_reduce = ledger.phases[static_cast<std::size_t>(Phase::all_reduce)];
  all_reduce.bytes_read = 1000000000;  // priced by the sweeps, never here
  const RooflineCeilings ceilings{10.0, 100.0, "test"};
  EXPECT_DOUBLE_EQ(roofline_compute_us(ledger, ceilings), 1.0 + 10.0);
}

}  // namespace
}  // namespace tpb
