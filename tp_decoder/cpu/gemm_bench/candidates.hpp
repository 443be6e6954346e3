#pragma once
// The products bench_cpu_gemm compares: y (m, n) = x (m, k) · wᵀ with w an
// (n, k) row-major fp32 weight, as the CPU backend's matmul computes it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpb::gemm_bench {

struct Workload {
  std::int64_t n = 0, k = 0;
  std::vector<const float*> weights;  // identical copies, read in turn so that no call finds w in cache
  const float* x = nullptr;           // (max m, k)
  float* y = nullptr;                 // (max m, n)
};

struct Candidate {
  std::string name;
  // Untimed, once per (shape, m) before the timed calls: plans, packed weights.
  // False: the candidate has no product for this shape (printed as -).
  std::function<bool(const Workload&, int m)> prepare = [](const Workload&, int) { return true; };
  std::function<void(const Workload&, int m, std::size_t copy)> run;
  bool writes_transpose = false;  // y holds yᵀ (n, m) rather than y (m, n)
};

inline Candidate make_candidate(std::string name, std::function<void(const Workload&, int, std::size_t)> run) {
  Candidate c;
  c.name = std::move(name);
  c.run = std::move(run);
  return c;
}

// OpenBLAS (the backend's calls and the swapped form) and the kept kernel.
std::vector<Candidate> builtin_candidates();

// The libraries found at build time (BLIS, oneDNN, libxsmm), through their
// native APIs; `notes` says what was left out and why.
std::vector<Candidate> optional_candidates(std::vector<std::string>& notes);

}  // namespace tpb::gemm_bench
