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

}  // namespace tpb
