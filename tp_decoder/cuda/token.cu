// Embedding and argmax kernels and launchers (token.cuh).
#include <climits>
#include <cmath>

#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/device_math.cuh"
#include "tp_decoder/cuda/token.cuh"

namespace tpb::gpu {
namespace {

constexpr int kEmbeddingThreads = 256;
constexpr int kArgmaxThreads = 512;
constexpr int kNoIndex = INT_MAX;  // larger than any vocabulary index

__global__ void embedding_kernel(bf16* out, const std::int32_t* tokens, const bf16* table, int hidden, int vocab) {
  const int b = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= hidden) return;
  const std::int32_t token = tokens[b];
  out[static_cast<std::size_t>(b) * hidden + i] =
      (token >= 0 && token < vocab) ? table[static_cast<std::size_t>(token) * hidden + i] : to_bf16(NAN);
}

struct Candidate {
  float value;
  int index;
};

// The better of two candidates: larger value, then lower index. A NaN value
// never compares greater, so it never replaces a number.
__device__ inline Candidate better(Candidate a, Candidate b) {
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

__device__ inline Candidate warp_best(Candidate c) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const Candidate other{__shfl_xor_sync(0xffffffffu, c.value, offset), __shfl_xor_sync(0xffffffffu, c.index, offset)};
    c = better(c, other);
  }
  return c;
}

// One block per sequence, strided over the whole vocabulary.
__global__ void argmax_kernel(std::int32_t* tokens, const float* logits, int batch, int vocab_per_shard, int shards) {
  __shared__ Candidate warp_results[kArgmaxThreads / kWarpSize];
  const int b = blockIdx.x;
  const int vocab = vocab_per_shard * shards;
  // Start at -inf with the largest index: any number, or -inf at a lower index, replaces it.
  Candidate best{-INFINITY, kNoIndex};
  for (int v = threadIdx.x; v < vocab; v += blockDim.x) {
    const int shard = v / vocab_per_shard;
    const int j = v % vocab_per_shard;
    const float value = logits[(static_cast<std::size_t>(shard) * batch + b) * vocab_per_shard + j];
    best = better(best, Candidate{value, v});
  }
  best = warp_best(best);
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  if (lane == 0) warp_results[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = lane < kArgmaxThreads / kWarpSize ? warp_results[lane] : Candidate{-INFINITY, kNoIndex};
    best = warp_best(best);
    // Every value NaN: no candidate ever won; report token 0 rather than an invalid index.
    if (lane == 0) tokens[b] = best.index < vocab ? best.index : 0;
  }
}

}  // namespace

void embedding(bf16* out, const std::int32_t* tokens, const bf16* table, int batch, int hidden, int vocab,
               cudaStream_t stream) {
  TPB_CHECK(batch > 0 && hidden > 0 && vocab > 0, "embedding: batch, hidden and vocab must be positive");
  const dim3 grid(ceil_div(hidden, kEmbeddingThreads), batch);
  embedding_kernel<<<grid, kEmbeddingThreads, 0, stream>>>(out, tokens, table, hidden, vocab);
  CUDA_CHECK_LAUNCH();
}

void argmax(std::int32_t* tokens, const float* logits, int batch, int vocab_per_shard, int shards,
            cudaStream_t stream) {
  TPB_CHECK(batch > 0 && vocab_per_shard > 0 && shards > 0,
            "argmax: batch, vocab_per_shard and shards must be positive");
  TPB_CHECK(static_cast<long long>(vocab_per_shard) * shards < kNoIndex,
            "argmax: vocabulary too large for int indices");
  argmax_kernel<<<batch, kArgmaxThreads, 0, stream>>>(tokens, logits, batch, vocab_per_shard, shards);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tpb::gpu
