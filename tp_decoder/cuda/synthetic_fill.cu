// Device-side synthetic weight generation (synthetic_fill.cuh).
#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/device_math.cuh"
#include "tp_decoder/cuda/synthetic_fill.cuh"

namespace tpb::gpu {
namespace {

constexpr int kFillThreads = 256;
constexpr int kMaxFillBlocks = 8192;  // grid-stride beyond: enough to saturate any current GPU

__device__ inline void store(bf16* dst, float value) { *dst = to_bf16(value); }
__device__ inline void store(float* dst, float value) { *dst = value; }

// 64-bit indices throughout: one KV history or embedding slice can exceed 2^31 elements.
template <typename T>
__global__ void fill_synthetic_kernel(T* dst, TensorSlice slice, std::uint64_t seed, std::uint64_t tensor_key,
                                      SyntheticInit init) {
  const std::uint64_t cols = static_cast<std::uint64_t>(slice.cols);
  const std::uint64_t n = static_cast<std::uint64_t>(slice.rows) * cols;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t row = static_cast<std::uint64_t>(slice.row_begin) + i / cols;
    const std::uint64_t col = static_cast<std::uint64_t>(slice.col_begin) + i % cols;
    store(dst + i, synthetic_value(seed, tensor_key, row, col, static_cast<std::uint64_t>(slice.global_cols), init));
  }
}

template <typename T>
void launch_fill(T* dst, const TensorSlice& slice, std::uint64_t seed, std::uint64_t tensor_key, SyntheticInit init,
                 cudaStream_t stream) {
  TPB_CHECK(slice.rows > 0 && slice.cols > 0, "fill_synthetic: empty slice");
  TPB_CHECK(slice.row_begin >= 0 && slice.col_begin >= 0 && slice.row_begin + slice.rows <= slice.global_rows &&
                slice.col_begin + slice.cols <= slice.global_cols,
            "fill_synthetic: slice outside its global tensor");
  const std::uint64_t n = static_cast<std::uint64_t>(slice.rows) * static_cast<std::uint64_t>(slice.cols);
  const std::uint64_t wanted = (n + kFillThreads - 1) / kFillThreads;
  const int blocks = static_cast<int>(wanted < kMaxFillBlocks ? wanted : kMaxFillBlocks);
  fill_synthetic_kernel<T><<<blocks, kFillThreads, 0, stream>>>(dst, slice, seed, tensor_key, init);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void fill_synthetic(bf16* dst, const TensorSlice& slice, std::uint64_t seed, std::uint64_t tensor_key,
                    SyntheticInit init, cudaStream_t stream) {
  launch_fill(dst, slice, seed, tensor_key, init, stream);
}

void fill_synthetic(float* dst, const TensorSlice& slice, std::uint64_t seed, std::uint64_t tensor_key,
                    SyntheticInit init, cudaStream_t stream) {
  launch_fill(dst, slice, seed, tensor_key, init, stream);
}

}  // namespace tpb::gpu
