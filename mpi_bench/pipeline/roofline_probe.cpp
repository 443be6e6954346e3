#include "mpi_bench/pipeline/roofline_probe.hpp"

#include "mpi_bench/membw.hpp"
#if defined(TPB_CUDA_BACKEND)
#include "mpi_bench/device_probes.hpp"
#endif

namespace tpb {

void probe_roofline_ceilings(BackendKind backend, MPI_Comm comm, H5File* file) {
  if (backend == BackendKind::cpu) {
    // 128 MiB, four times a 32 MiB last-level cache, in 5 passes: every study
    // pays for it, so it reads an eighth of what `mpi_bench membw` does.
    constexpr MembwOptions kReadProbe{.bytes = std::size_t{128} << 20, .warmup = 1, .iters = 5};
    gather_membw(comm, file, measure_read_bandwidth(comm, kReadProbe));
    return;
  }
#if defined(TPB_CUDA_BACKEND)
  // 256 MiB per copy, five times a 50 MiB L2, in 10 copies, and 10 GEMMs of
  // 4096³ (gemm_rate.hpp): a few milliseconds of device time on an H100, a
  // quarter of what `mpi_bench d2d` copies.
  constexpr D2dCopyOptions kCopyProbe{.bytes = std::size_t{256} << 20, .warmup = 2, .iters = 10};
  gather_d2d_copy(comm, file, kCopyProbe);
  gather_gemm_rate(comm, file, GemmRateOptions{});
#endif
}

}  // namespace tpb
