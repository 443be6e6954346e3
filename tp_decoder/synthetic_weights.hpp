#pragma once
// Synthetic weights: every element is a pure function of (seed, tensor key,
// global row, global column) through a counter-based hash, so a rank can
// generate only its own slice and the TP-k slices are bit for bit the TP-1
// tensors. The same inline functions run on the host (CPU backend, reference
// decoder) and on the device (CUDA backend generates its shards in place).
//
// C++17 and CUDA-clean: included by .cu files.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TPB_HOST_DEVICE __host__ __device__
#else
#define TPB_HOST_DEVICE
#endif

namespace tpb {

// How one synthetic tensor is drawn: value = offset + x * step, where x is a
// uniform integer in [-2^23, 2^23) from the hash. `step` is a power of two,
// so x * step is exact in fp32 and the one rounding (in the add) gives the
// same result with or without FMA contraction, on any host or device.
struct SyntheticInit {
  float offset = 0.0f;  // centre (1 for RMSNorm gains, 0 otherwise)
  float step = 0.0f;    // amplitude / 2^23, a power of two
};

// The key that tells one tensor from another: layer and tensor kind. Tensors
// outside layers (embedding, final norm, LM head) use layer = -1.
TPB_HOST_DEVICE inline std::uint64_t synthetic_tensor_key(int layer, int tensor_kind) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(layer + 1)) << 16) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(tensor_kind));
}

// SplitMix64's finaliser: a bijective 64-bit mix with full avalanche.
TPB_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Element (row, col) of a tensor whose global shape has `global_cols` columns.
// The counter is the element's global row-major index: independent of how the
// tensor is sliced.
TPB_HOST_DEVICE inline float synthetic_value(std::uint64_t seed, std::uint64_t tensor_key, std::uint64_t row,
                                             std::uint64_t col, std::uint64_t global_cols, SyntheticInit init) {
  const std::uint64_t stream = mix64(seed ^ mix64(tensor_key + 0x9E3779B97F4A7C15ULL));
  const std::uint64_t bits = mix64(stream + row * global_cols + col);
  // Top 24 bits, centred: an integer in [-2^23, 2^23), exact in fp32.
  const std::int32_t x = static_cast<std::int32_t>(bits >> 40) - (1 << 23);
  return init.offset + static_cast<float>(x) * init.step;
}

// Largest power of two <= amplitude, divided by 2^23 (host only: computed once
// per tensor and handed to the generator).
inline float synthetic_step(double amplitude) {
  const int exponent = static_cast<int>(std::floor(std::log2(amplitude)));
  return std::ldexp(1.0f, exponent - 23);
}

// Uniform in about ±sqrt(3/fan_in) (variance ~1/fan_in, rounded down to a
// power of two): keeps activations bounded through 80 layers.
inline SyntheticInit linear_init(long long fan_in) {
  return SyntheticInit{0.0f, synthetic_step(std::sqrt(3.0 / static_cast<double>(fan_in)))};
}

// RMSNorm gains: 1 ± 1/8.
inline SyntheticInit norm_gain_init() { return SyntheticInit{1.0f, synthetic_step(0.125)}; }

// Embedding rows, biases and KV history: uniform in ±1 and ±1/8.
inline SyntheticInit embedding_init() { return SyntheticInit{0.0f, synthetic_step(1.0)}; }
inline SyntheticInit bias_init() { return SyntheticInit{0.0f, synthetic_step(0.125)}; }
inline SyntheticInit kv_history_init() { return SyntheticInit{0.0f, synthetic_step(1.0)}; }

}  // namespace tpb
