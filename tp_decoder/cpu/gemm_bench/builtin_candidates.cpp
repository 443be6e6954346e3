#include <cblas.h>

#include "tp_decoder/cpu/gemm_bench/candidates.hpp"
#include "tp_decoder/cpu/small_batch_gemm.hpp"

namespace tpb::gemm_bench {

std::vector<Candidate> builtin_candidates() {
  std::vector<Candidate> list;
  // What the backend runs: the kernel at every m, reading each weight copy as
  // a packed weight. Its time does not depend on the values, so the copies the
  // other candidates read row-major serve it as they are: it computes the
  // product with another weight, the one whose packed order these bytes are.
  list.push_back(make_candidate("kept", [](const Workload& w, int m, std::size_t copy) {
                    small_batch_gemm(small_batch_gemm_isa(), m, w.n, w.k, w.x, w.weights[copy], nullptr, w.y);
                  }));
  // The backend's calls before the kernel: sgemv for one row, sgemm otherwise.
  list.push_back(make_candidate("openblas", [](const Workload& w, int m, std::size_t copy) {
                    const auto n = static_cast<blasint>(w.n), k = static_cast<blasint>(w.k);
                    if (m == 1)
                      cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0f, w.weights[copy], k, w.x, 1, 0.0f, w.y, 1);
                    else
                      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, w.x, k, w.weights[copy], k,
                                  0.0f, w.y, n);
                  }));
  list.push_back(make_candidate("openblas_sgemm", [](const Workload& w, int m, std::size_t copy) {
                    const auto n = static_cast<blasint>(w.n), k = static_cast<blasint>(w.k);
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, w.x, k, w.weights[copy], k,
                                0.0f, w.y, n);
                  }));
  // A and B swapped: yᵀ (n, m) = w · xᵀ, the weight as the left operand.
  Candidate swapped = make_candidate("openblas_swapped", [](const Workload& w, int m, std::size_t copy) {
    const auto n = static_cast<blasint>(w.n), k = static_cast<blasint>(w.k);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m, k, 1.0f, w.weights[copy], k, w.x, k, 0.0f, w.y, m);
  });
  swapped.writes_transpose = true;
  list.push_back(std::move(swapped));
  return list;
}

}  // namespace tpb::gemm_bench
