#pragma once
// The CUDA backend beside the CPU backend, fed identical inputs (ggml's
// test-backend-ops pattern). Inputs are bf16-representable, so both backends
// start from the same numbers and differences come only from the CUDA side's
// bf16 outputs and fp32 summation order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/cpu/cpu_backend.hpp"
#include "tp_decoder/cuda/cuda_backend.hpp"

namespace tpb::test {

// Round to the nearest bf16, ties to even (what the CUDA backend's upload and
// every kernel's store do). Inputs here are finite.
inline float round_to_bf16(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  bits &= 0xFFFF0000u;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// n values uniform in [-amplitude, amplitude) + offset, each bf16-representable.
inline std::vector<float> bf16_values(std::size_t n, float amplitude, std::uint32_t seed, float offset = 0.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-amplitude, amplitude);
  std::vector<float> values(n);
  for (float& v : values) v = round_to_bf16(offset + uniform(rng));
  return values;
}

// A tensor's values as fp32 on the host (ordered after the backend's queued work).
inline std::vector<float> read(Backend& backend, const Tensor& t) {
  std::vector<float> values(static_cast<std::size_t>(t.numel()));
  backend.download(t, values.data());
  return values;
}

// One logical tensor held by both backends.
struct Twin {
  OwnedTensor cpu;
  OwnedTensor cuda;
};

// Test fixture base: skips without a device, else owns one backend of each kind.
class TwinBackends : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaInfo cuda = query_cuda_info();
    if (cuda.device_count == 0) GTEST_SKIP() << "no CUDA device visible" << (cuda.device_error.empty() ? "" : ": ") << cuda.device_error;
    cpu_ = make_cpu_backend();
    cuda_ = make_cuda_backend();
  }

  Twin make(std::int64_t rows, std::int64_t cols, TensorRole role, const std::vector<float>& values) {
    Twin t{OwnedTensor(*cpu_, rows, cols, role), OwnedTensor(*cuda_, rows, cols, role)};
    EXPECT_EQ(values.size(), static_cast<std::size_t>(rows * cols));
    cpu_->upload(*t.cpu, values.data());
    cuda_->upload(*t.cuda, values.data());
    return t;
  }
  Twin zeros(std::int64_t rows, std::int64_t cols, TensorRole role) {
    return make(rows, cols, role, std::vector<float>(static_cast<std::size_t>(rows * cols), 0.0f));
  }
  Twin tokens(const std::vector<std::int32_t>& ids) {
    const auto n = static_cast<std::int64_t>(ids.size());
    Twin t{OwnedTensor(*cpu_, 1, n, TensorRole::tokens), OwnedTensor(*cuda_, 1, n, TensorRole::tokens)};
    cpu_->upload_tokens(*t.cpu, ids.data());
    cuda_->upload_tokens(*t.cuda, ids.data());
    return t;
  }

  std::vector<float> read_cpu(const Twin& t) { return read(*cpu_, *t.cpu); }
  std::vector<float> read_cuda(const Twin& t) {
    cuda_->synchronize();
    return read(*cuda_, *t.cuda);
  }

  std::unique_ptr<Backend> cpu_;
  std::unique_ptr<Backend> cuda_;
};

// Every element within rtol * |cpu| + atol_rel * max|cpu|; on failure names the
// worst element. rtol covers the one bf16 rounding of a CUDA output (at most
// 2^-9 relative), atol_rel the fp32 summation-order noise where a sum cancels.
inline ::testing::AssertionResult all_close(const std::vector<float>& cuda, const std::vector<float>& cpu, double rtol,
                                            double atol_rel) {
  if (cuda.size() != cpu.size())
    return ::testing::AssertionFailure() << "sizes differ: " << cuda.size() << " vs " << cpu.size();
  double max_abs = 0.0;
  for (float v : cpu) max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  double worst_excess = 0.0;
  std::size_t worst = cpu.size();
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double allowed = rtol * std::fabs(cpu[i]) + atol_rel * max_abs;
    const double diff = std::fabs(static_cast<double>(cuda[i]) - cpu[i]);
    if (!(diff <= allowed) && (worst == cpu.size() || diff - allowed > worst_excess)) {  // NaN fails too
      worst = i;
      worst_excess = diff - allowed;
    }
  }
  if (worst == cpu.size()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "element " << worst << ": cuda " << cuda[worst] << " vs cpu " << cpu[worst]
                                       << " (allowed " << rtol << " relative + " << atol_rel << " x max|cpu| "
                                       << max_abs << ")";
}

// One bf16 rounding of the output: 2^-9 relative; twice that leaves room for
// the fp32 intermediate differences (expf, sincosf, rsqrtf vs libm).
inline constexpr double kBf16OutputRtol = 1.0 / 256;
// fp32 summation-order noise relative to the tensor's largest value, for sums
// of up to a few thousand terms (~sqrt(k) * 2^-24 each, far below this).
inline constexpr double kSumOrderAtol = 1.0 / 4096;

}  // namespace tpb::test
