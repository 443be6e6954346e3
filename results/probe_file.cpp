#include "results/probe_file.hpp"

#include "results/layout.hpp"

namespace tpb {
namespace {

H5Handle write_bandwidth(H5File& file, const char* group, const char* dataset, const BandwidthRecord& r,
                         const char* method) {
  file.write_dataset(dataset, r.GBps, {static_cast<std::uint64_t>(r.passes), static_cast<std::uint64_t>(r.ranks)});
  H5Handle handle = file.group(group);
  write_attributes(handle.id(), {{"bytes", r.bytes}, {"method", method}});
  return handle;
}

}  // namespace

void write_membw(H5File& file, const BandwidthRecord& read, int threads, double fma_peak_GFLOPs) {
  const H5Handle group = write_bandwidth(file, kMembwGroup, kMembwReadGBps, read,
                                         "sum of a float array, each OpenMP thread its share as four streams side by "
                                         "side, every rank at once, GB = 1e9 bytes");
  write_attributes(group.id(), {{"threads", threads}, {"fma_peak_GFLOPs", fma_peak_GFLOPs}});
}

std::optional<MembwRecord> read_membw(const H5File& file) {
  if (!file.exists(kMembwReadGBps)) return std::nullopt;
  H5Handle group = file.open_object(kMembwGroup);
  return MembwRecord{file.read_doubles(kMembwReadGBps),
                     static_cast<int>(read_integer_attribute(group.id(), "threads")),
                     read_double_attribute(group.id(), "fma_peak_GFLOPs")};
}

void write_d2d(H5File& file, const BandwidthRecord& copy) {
  write_bandwidth(file, kD2dGroup, kD2dCopyGBps, copy,
                  "cudaMemcpyAsync device to device timed by CUDA events, 2 x bytes / time (read + written), every "
                  "rank at once, GB = 1e9 bytes");
}

std::optional<std::vector<double>> read_d2d(const H5File& file) {
  if (!file.exists(kD2dCopyGBps)) return std::nullopt;
  return file.read_doubles(kD2dCopyGBps);
}

void write_gemm_rate(H5File& file, const GemmRateRecord& rate, int passes, int ranks) {
  file.write_dataset(kGemmRateGFLOPs, rate.GFLOPs,
                     {static_cast<std::uint64_t>(passes), static_cast<std::uint64_t>(ranks)});
  const H5Handle group = file.group(kGemmGroup);
  write_attributes(group.id(), {{"m", rate.shape.m},
                                {"n", rate.shape.n},
                                {"k", rate.shape.k},
                                {"types", rate.shape.types},
                                {"method", "the decode step's cuBLAS GEMM y = x . w^T timed by CUDA events, "
                                           "2 m n k / time, every rank at once, GFLOP = 1e9 flop"}});
}

std::optional<GemmRateRecord> read_gemm_rate(const H5File& file) {
  if (!file.exists(kGemmRateGFLOPs)) return std::nullopt;
  H5Handle group = file.open_object(kGemmGroup);
  const auto dimension = [&](const char* name) { return static_cast<int>(read_integer_attribute(group.id(), name)); };
  return GemmRateRecord{file.read_doubles(kGemmRateGFLOPs),
                        {dimension("m"), dimension("n"), dimension("k"), read_string_attribute(group.id(), "types")}};
}

}  // namespace tpb
