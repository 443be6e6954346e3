// The report's `roofline` line says which bytes its bandwidth counts, from
// what the registration sealed: on cpu the line every earlier report printed.
#include <gtest/gtest.h>

#include "results/report_roofline.hpp"

namespace tpb {
namespace {

TEST(ReportRoofline, OnCpuWritesArePricedAtTheReadBandwidth) {
  const RooflineCeilings host{RooflineBandwidth::host_read, 6.154, 52.489, "membw: host memory read, every rank at once",
                              ""};
  EXPECT_EQ(roofline_ceilings_line(host),
            "- `roofline` prices each phase of the TP-k shard's ledger at max((bytes read + bytes written) / 6.15 GB/s, "
            "flops / 52.49 GFLOP/s): the read bandwidth and the compute peak (threads × one core's FMA peak) measured "
            "at calibration (membw: host memory read, every rank at once); reads and writes are both priced at the "
            "read bandwidth\n");
}

TEST(ReportRoofline, OnCudaTheCopyBandwidthCountsReadsPlusWrites) {
  const RooflineCeilings device{RooflineBandwidth::device_copy, 3012.5, 612345.0, "d2d: copy", "cuBLAS GEMM 4096³"};
  const std::string line = roofline_ceilings_line(device);
  EXPECT_NE(line.find("/ 3012.50 GB/s, flops / 612345.00 GFLOP/s"), std::string::npos) << line;
  EXPECT_NE(line.find("the device-to-device copy bandwidth (d2d: copy) and the compute peak (cuBLAS GEMM 4096³)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("counts bytes read plus bytes written"), std::string::npos) << line;
  EXPECT_EQ(line.find("read bandwidth"), std::string::npos) << line;
}

}  // namespace
}  // namespace tpb
