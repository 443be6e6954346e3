#pragma once
// What the CUDA side of this build can see. Safe to call on any host: without
// a driver or a GPU it reports zero devices instead of failing.
#include <string>
#include <vector>

namespace tpb {

struct CudaInfo {
  bool compiled_in = false;           // this build has the CUDA backend and NCCL
  int device_count = 0;               // visible devices (0 without driver or GPU)
  std::string runtime_version;        // "13.0", empty when not compiled in
  std::string driver_version;         // "13.0", empty without a driver
  std::string nccl_version;           // "2.28.3", empty when not compiled in
  std::vector<std::string> device_names;
  // Why device_count is 0 when the runtime failed to count (no driver, a
  // driver too old for the runtime, no device...): cuda_error_line's line for
  // cudaGetDeviceCount. Empty when counting succeeded, and without CUDA.
  std::string device_error;
};

CudaInfo query_cuda_info();

// One line for a failed CUDA runtime call: "CALL: cudaErrorName: the runtime's
// message (error N, CUDA runtime 13.0, driver 12.4)", the driver "none" when
// there is none. `status` is the cudaError_t the call returned. CUDA builds only.
std::string cuda_error_line(const std::string& call, int status);

// Selects device `index` for this process (CUDA builds); no-op otherwise.
void bind_cuda_device(int index);

}  // namespace tpb
