#pragma once
// bench_cpu_gemm's closing lines: for each model and batch size m, the kept
// kernel's and the no-layout loop's (`overlap`) fractions of the limit over
// the model's shapes, so a run's goals (a fraction at each m, on every shape)
// and how near the kernel came to what the core reached with no layout can be
// read without going through the table.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tpb::gemm_bench {

class BatchSummary {
 public:
  // One shape's figures at one m: the kept kernel's and overlap's fractions of
  // the limit (limit / median time), both positive.
  void add(const std::string& model, int m, double kept, double overlap);

  // '#' lines, one header per model and a line per m: kept and overlap as
  // least / median / most over the shapes, and the median over the shapes of
  // kept / overlap. Empty when nothing was added.
  std::string format() const;

 private:
  struct Figures {
    std::vector<double> kept, overlap, kept_over_overlap;
  };
  // Models in the order they were first added, each with its batch sizes.
  std::vector<std::pair<std::string, std::map<int, Figures>>> models_;
};

}  // namespace tpb::gemm_bench
