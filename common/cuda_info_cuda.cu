// CUDA build of common/cuda_info.hpp: asks the runtime, never the driver API.
#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/cuda_info.hpp"

namespace tpb {
namespace {
std::string version_string(int encoded) {  // 13000 -> "13.0"
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

std::string device_name(int index) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  return prop.name;
}
}  // namespace

CudaInfo query_cuda_info() {
  CudaInfo info;
  info.compiled_in = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) info.runtime_version = version_string(runtime);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) info.driver_version = version_string(driver);
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    info.nccl_version = fmt::format("{}.{}.{}", nccl / 10000, (nccl % 10000) / 100, nccl % 100);
  int count = 0;
  // No driver, a driver too old for this runtime, or no GPU: the runtime
  // returns an error; that means "no devices", and the line says which.
  const cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    count = 0;
    info.device_error = cuda_error_line("cudaGetDeviceCount", counted);
  }
  info.device_count = count;
  for (int i = 0; i < count; ++i) info.device_names.push_back(device_name(i));
  return info;
}

void bind_cuda_device(int index) { CUDA_CHECK(cudaSetDevice(index)); }

std::string cuda_error_line(const std::string& call, int status) {
  const auto error = static_cast<cudaError_t>(status);
  int runtime = 0;
  int driver = 0;
  const std::string runtime_text =
      cudaRuntimeGetVersion(&runtime) == cudaSuccess ? version_string(runtime) : std::string("unknown");
  const std::string driver_text =
      cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 ? version_string(driver) : std::string("none");
  return fmt::format("{}: {}: {} (error {}, CUDA runtime {}, driver {})", call, cudaGetErrorName(error),
                     cudaGetErrorString(error), status, runtime_text, driver_text);
}

}  // namespace tpb
