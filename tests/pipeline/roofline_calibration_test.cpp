// `roofline` prices each compute phase of a ledger at the slower of its two
// ceilings, and leaves the collectives to the sweeps; the ceilings are the
// calibration's probes on its backend: /membw on cpu, /d2d and /gemm on cuda.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/error.hpp"
#include "mpi_bench/pipeline/roofline_calibration.hpp"
#include "results/probe_file.hpp"

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
  const RooflineCeilings ceilings{RooflineBandwidth::host_read, 10.0, 100.0, "test", ""};
  EXPECT_DOUBLE_EQ(roofline_compute_us(ledger, ceilings), 1.0 + 10.0);
}

// A scratch HDF5 file holding what `write` puts in it, removed at the end.
class ProbeFile : public ::testing::Test {
 protected:
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("tpb_roofline_probes_" + std::to_string(getpid()) + ".h5"))
                               .string();
  void TearDown() override { std::filesystem::remove(path); }

  template <typename Write>
  std::optional<RooflineCeilings> ceilings_of(Write write) {
    {
      H5File file(path, H5Mode::create_overwrite);
      write(file);
    }
    return read_roofline_ceilings(H5File(path, H5Mode::read_only));
  }
};

void write_copy(H5File& file) { write_d2d(file, {{100.0, 300.0, 200.0, 400.0}, 2, 2, 1 << 20}); }
void write_gemm(H5File& file) {
  write_gemm_rate(file, {{5.0, 7.0, 9.0, 1.0}, {512, 256, 128, "bf16 x, w and y, fp32 accumulation"}}, 2, 2);
}

TEST_F(ProbeFile, OnCpuTheReadBandwidthAndThreadsTimesTheFmaPeak) {
  const auto c = ceilings_of([](H5File& f) { write_membw(f, {{10.0, 20.0, 30.0, 44.0}, 2, 2, 1 << 20}, 3, 5.0); });
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->bandwidth, RooflineBandwidth::host_read);
  EXPECT_DOUBLE_EQ(c->bandwidth_GBps, 25.0);
  EXPECT_DOUBLE_EQ(c->peak_GFLOPs, 15.0);
  EXPECT_EQ(c->bandwidth_probe, "membw: host memory read, every rank at once");
  EXPECT_EQ(c->peak_probe, "");
}

TEST_F(ProbeFile, OnCudaTheCopyBandwidthAndTheGemmRateWithItsShape) {
  const auto c = ceilings_of([](H5File& f) {
    write_copy(f);
    write_gemm(f);
  });
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->bandwidth, RooflineBandwidth::device_copy);
  EXPECT_DOUBLE_EQ(c->bandwidth_GBps, 250.0);  // the medians over passes and ranks
  EXPECT_DOUBLE_EQ(c->peak_GFLOPs, 6.0);
  EXPECT_NE(c->bandwidth_probe.find("read + written"), std::string::npos) << c->bandwidth_probe;
  EXPECT_EQ(c->peak_probe, "cuBLAS GEMM 512 x 256 x 128, bf16 x, w and y, fp32 accumulation, every rank at once");
}

TEST_F(ProbeFile, NoCeilingsWithoutBothDeviceProbes) {
  EXPECT_FALSE(ceilings_of(write_copy).has_value());
  EXPECT_FALSE(ceilings_of(write_gemm).has_value());
  EXPECT_FALSE(ceilings_of([](H5File&) {}).has_value());
}

TEST_F(ProbeFile, ANonPositiveGemmRateIsRefused) {
  EXPECT_THROW(ceilings_of([](H5File& f) {
                 write_copy(f);
                 write_gemm_rate(f, {{0.0, 0.0}, {1, 1, 1, "bf16"}}, 1, 2);
               }),
               Error);
}

}  // namespace
}  // namespace tpb
