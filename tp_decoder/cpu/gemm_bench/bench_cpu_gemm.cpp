// bench_cpu_gemm: the decode step's projection products on one core, every
// candidate in one process and interleaved (A, B, C, A, B, C, ...), each call
// on a different copy of the weight so that none finds it in cache (the copies
// in one weight arena, placed in memory as a study places its weights), and
// with the batch rows read just before, as the step leaves them in cache.
// Prints each candidate's median as a fraction of the limit max(t_read, t_fma):
// t_read a sum over the same weight copy (one core's read of its bytes, four
// streams side by side: roofline.hpp) and t_fma the product's 2mnk flops in
// register-only FMA chains, both timed in the same interleaved rounds, so that
// a loaded machine slows limit and candidates alike. A one-stream read of the
// same bytes is timed beside them, to show what the four streams gain, and the
// four-stream read doing the product's flops as it goes (read_with_fmas), to
// show how near the limit this core comes when it must read and compute at once
// with no layout to follow. Every candidate's product is checked against
// OpenBLAS's before it is timed; one that is off is printed as `wrong`, and the
// bench then exits 1. After the table, per model and m, the kept kernel's and
// `overlap`'s fractions over the shapes (batch_summary.hpp). `--model ridge`
// takes one weight through every m from 1 to 16, across the ridge. Run through
// jobs/bench_cpu_gemm.sh, which pins it to one core.
#include <cblas.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "common/samples.hpp"
#include "tp_decoder/cpu/gemm_bench/batch_summary.hpp"
#include "tp_decoder/cpu/gemm_bench/candidates.hpp"
#include "tp_decoder/cpu/roofline.hpp"
#include "tp_decoder/cpu/small_batch_gemm.hpp"
#include "tp_decoder/cpu/weight_arena.hpp"

namespace tpb::gemm_bench {
namespace {

struct Shape {
  const char* model;
  const char* name;
  std::int64_t n, k;
  bool by_name_only = false;  // left out of the default run
  bool every_batch = false;   // m = 1 .. kMaxBatch rather than kBatches
};

// TP-1 projections of the two models (tp_decoder/configs): qkv is q + 2 kv
// heads, gate_up the two halves side by side; the LM head of the 1B model too.
constexpr Shape kShapes[] = {
    {"llama-3.2-1b", "qkv", 3072, 2048},      {"llama-3.2-1b", "o_proj", 2048, 2048},
    {"llama-3.2-1b", "gate_up", 16384, 2048}, {"llama-3.2-1b", "down", 2048, 8192},
    {"llama-3.2-1b", "lm_head", 128256, 2048}, {"llama-3.1-8b", "qkv", 6144, 4096},
    {"llama-3.1-8b", "o_proj", 4096, 4096},   {"llama-3.1-8b", "gate_up", 28672, 4096},
    {"llama-3.1-8b", "down", 4096, 14336},
    // Seconds, not minutes, with every candidate and its check: for the test
    // suite. n and k are not multiples of any vector width or block.
    {"smoke", "odd", 37, 53, true},             {"smoke", "blocks", 200, 72, true},
    // One 64 MiB weight at every m from 1 to 16: where the ridge (fma/read = 1)
    // lies on this core, and how near the limit reading and computing at once
    // comes on either side of it and at it.
    {"ridge", "8192x2048", 8192, 2048, true, true},
};
constexpr int kBatches[] = {1, 2, 4, 8, 16};
constexpr int kMaxBatch = 16;

std::vector<int> batches_of(const Shape& shape) {
  if (!shape.every_batch) return {std::begin(kBatches), std::end(kBatches)};
  std::vector<int> every;
  for (int m = 1; m <= kMaxBatch; ++m) every.push_back(m);
  return every;
}
static_assert(kMaxBatch <= kMaxReadFmas, "read_with_fmas takes one multiply-add per batch row");
// Copies of a weight, together at least this large: several times the 32 MiB
// L3, so a weight is never still cached from the call before.
constexpr std::size_t kRotationBytes = std::size_t{192} << 20;
// At most this many copies: a real shape needs 12 at most; the smoke shapes,
// which need none, would otherwise take hundreds of thousands.
constexpr std::size_t kMaxCopies = 64;
// A product is right when no element is further than this fraction of the
// reference's largest |y| from it: the step's TP-k ≡ TP-1 logit tolerance.
// Summation order alone moves an element by far less (√k · 2⁻²⁴ of a row's
// magnitudes); a weight read the wrong way round moves it by as much as |y|.
constexpr double kRelativeTolerance = 1e-4;

using Clock = std::chrono::steady_clock;

struct Buffer {
  float* data;
  explicit Buffer(std::size_t count) : data(static_cast<float*>(std::aligned_alloc(64, (count * 4 + 63) / 64 * 64))) {}
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

void fill(float* v, std::size_t count, std::uint64_t seed) {
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < count; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = static_cast<float>(static_cast<std::int32_t>(s >> 32)) * 4.6e-10f;  // within ±1
  }
}

volatile float g_sink = 0;  // keeps the probes' results observable

// y (m, n) = x · wᵀ by OpenBLAS, w weight copy 0 read row-major, or, when
// `packed`, as the packed weight the kept kernel reads those bytes as (its
// rows unpacked a block at a time, so the check never holds a second weight).
void reference_product(const Workload& w, int m, bool packed, float* y) {
  const auto k = static_cast<blasint>(w.k), n = static_cast<blasint>(w.n);
  if (!packed) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, w.x, k, w.weights[0], k, 0.0f, y, n);
    return;
  }
  constexpr std::int64_t kBlockRows = 256;
  std::vector<float> rows(static_cast<std::size_t>(std::min(kBlockRows, w.n) * w.k));
  for (std::int64_t j0 = 0; j0 < w.n; j0 += kBlockRows) {
    const std::int64_t count = std::min(kBlockRows, w.n - j0);
    unpack_weight_rows(w.n, w.k, j0, count, w.weights[0], rows.data());
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, static_cast<blasint>(count), k, 1.0f, w.x, k,
                rows.data(), k, 0.0f, y + j0, n);
  }
}

// The largest |y - reference| over the (m, n) product, and the bound it must
// stay within.
struct ProductError {
  double largest = 0, bound = 0;
  bool right() const { return largest <= bound; }  // false for NaN too
};

// y (m, n) against `reference` (m, n); y read as yᵀ (n, m) when `transposed`.
ProductError compare(const float* y, bool transposed, const float* reference, int m, std::int64_t n) {
  double largest_y = 0, largest = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double expected = reference[i * n + j];
      const double error = std::fabs((transposed ? y[j * m + i] : y[i * n + j]) - expected);
      largest_y = std::max(largest_y, std::fabs(expected));
      largest = std::isnan(error) || std::isnan(largest) ? NAN : std::max(largest, error);
    }
  return {largest, kRelativeTolerance * largest_y};
}

// The probes timed with the candidates, in this order: a read of the weight
// copy's bytes (as membw reads), the product's flops with no memory traffic,
// the same bytes read as one stream, and the read with the product's flops.
enum Probe : std::size_t { kRead, kFma, kReadOneStream, kReadWithFmas, kProbes };

std::vector<Candidate> probes() {
  std::vector<Candidate> list;
  list.push_back(make_candidate("read", [](const Workload& w, int, std::size_t copy) {
    g_sink = g_sink + sum_floats(w.weights[copy], w.n * w.k);
  }));
  list.push_back(make_candidate("fma", [](const Workload& w, int m, std::size_t) {
    g_sink = g_sink + fma_chains(2.0 * static_cast<double>(m * w.n) * static_cast<double>(w.k));
  }));
  list.push_back(make_candidate("read_one_stream", [](const Workload& w, int, std::size_t copy) {
    g_sink = g_sink + sum_floats_one_stream(w.weights[copy], w.n * w.k);
  }));
  list.push_back(make_candidate("read_with_fmas", [](const Workload& w, int m, std::size_t copy) {
    g_sink = g_sink + read_with_fmas(w.weights[copy], w.n * w.k, w.x, m);
  }));
  return list;
}

std::string library_of(const char* symbol) {
  Dl_info info{};
  void* address = dlsym(RTLD_DEFAULT, symbol);
  return address && dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?";
}

// The shapes a run measures: that model's when `model` is not empty.
bool selected(const Shape& shape, const std::string& model) {
  return model.empty() ? !shape.by_name_only : model == shape.model;
}

// model: only that model's shapes when not empty.
int run(int reps, const std::string& model) {
  if (!model.empty() &&
      std::none_of(std::begin(kShapes), std::end(kShapes), [&](const Shape& s) { return model == s.model; })) {
    fmt::print(stderr, "bench_cpu_gemm: no shapes of model '{}' (llama-3.2-1b, llama-3.1-8b, smoke or ridge)\n",
               model);
    return 2;
  }
  bool all_right = true;
  std::vector<Candidate> candidates = probes();
  constexpr std::size_t kKept = kProbes;
  for (Candidate& c : builtin_candidates()) candidates.push_back(std::move(c));  // kept first
  const auto openblas = static_cast<std::size_t>(
      std::find_if(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.name == "openblas"; }) -
      candidates.begin());
  std::vector<std::string> notes;
  for (Candidate& c : optional_candidates(notes)) candidates.push_back(std::move(c));
  const GemmIsa isa = small_batch_gemm_isa();
  fmt::print("# bench_cpu_gemm: {} OpenMP thread(s), kept = the small-batch {} kernel the backend runs, on "
             "packed weights\n",
             omp_get_max_threads(), to_string(isa));
  if (isa == GemmIsa::avx2_fma) {
    std::string plans;
    std::set<int> batches;
    for (const Shape& shape : kShapes)
      if (selected(shape, model))
        for (int m : batches_of(shape)) batches.insert(m);
    for (int m : batches) {
      const PanelPlan plan = small_batch_gemm_plan(m);
      plans += fmt::format("{}m = {}: {} panels, {} rows from memory", plans.empty() ? "" : "; ", m, plan.panels,
                           std::min(m, plan.read_rows));
      if (m > plan.read_rows) plans += fmt::format(", the rest from L1 in tiles of <= {}", plan.tile_rows);
    }
    fmt::print("# kept's read plan: {}\n", plans);
  }
  fmt::print("# cblas_sgemm from {}\n", library_of("cblas_sgemm"));
  fmt::print("# FMA peak before the run: {:.1f} GFLOP/s (one thread, {} chains, best of 7)\n", fma_peak_GFLOPs(7),
             to_string(isa));
  for (const std::string& note : notes) fmt::print("# {}\n", note);
  fmt::print("# limit_ms = max(median t_read, median t_fma), fma/read = median t_fma / median t_read (above 1 the "
             "flops limit, below it the read; 1 is the ridge), read_GBps = 4nk / t_read (four streams), one_GBps the "
             "same bytes read as one stream; overlap: limit / the median time of the four-stream read doing the product's "
             "flops as it goes (m broadcast FMAs per loaded vector, no layout): how near the limit this core gets "
             "reading and computing at once; each candidate column: "
             "limit / its median time (1 = at the limit); kept/openblas: ratio of median times; {} interleaved "
             "calls per candidate, each on a weight copy not in cache and with the batch rows x read just before "
             "it, as the step's previous op leaves them\n",
             reps);
  std::string header = fmt::format("{:<13} {:<9} {:>3} {:>9} {:>8} {:>9} {:>8} {:>8}", "model", "shape", "m",
                                   "limit_ms", "fma/read", "read_GBps", "one_GBps", "overlap");
  for (std::size_t i = kKept; i < candidates.size(); ++i)
    header += fmt::format(" {:>{}}", candidates[i].name, std::max<std::size_t>(8, candidates[i].name.size()));
  fmt::print("{} {:>14}\n", header, "kept/openblas");
  std::fflush(stdout);

  BatchSummary summary;
  for (const Shape& shape : kShapes) {
    if (!selected(shape, model)) continue;
    const std::size_t bytes = static_cast<std::size_t>(shape.n * shape.k) * 4;
    const std::size_t copies = std::clamp<std::size_t>((kRotationBytes + bytes - 1) / bytes, 2, kMaxCopies);
    // The copies come from one weight arena, as a study's weights do
    // (weight_arena.hpp): its scattered first touch gives every copy, and
    // every shape, the same mix of physical pages. From plain allocations the
    // kernel fell further behind `overlap` on a run's first shapes, on the
    // process's first pages, than on later ones, on pages the shapes before
    // had freed (bench/archive/2026-12-05-gemm-weight-arena).
    const std::size_t stride = (bytes + 63) / 64 * 64;
    WeightArena arena(copies * stride);
    Workload work{shape.n, shape.k, {}, nullptr, nullptr};
    for (std::size_t c = 0; c < copies; ++c) {
      auto* copy = static_cast<float*>(arena.take(stride));
      fill(copy, static_cast<std::size_t>(shape.n * shape.k), c + 1);
      work.weights.push_back(copy);
    }
    Buffer x(static_cast<std::size_t>(kMaxBatch * shape.k)), y(static_cast<std::size_t>(kMaxBatch * shape.n));
    fill(x.data, static_cast<std::size_t>(kMaxBatch * shape.k), 99);
    work.x = x.data;
    work.y = y.data;
    const auto products = static_cast<std::size_t>(kMaxBatch * shape.n);
    std::vector<float> reference(products), packed_reference(products);
    for (int m : batches_of(shape)) {
      std::vector<bool> ready, wrong(candidates.size(), false);
      for (Candidate& c : candidates) ready.push_back(c.prepare(work, m));
      reference_product(work, m, false, reference.data());
      reference_product(work, m, true, packed_reference.data());
      std::vector<std::vector<double>> ms(candidates.size());
      std::size_t copy = 0;
      // rep -1: one untimed call each, on copy 0, whose product is checked.
      for (int rep = -1; rep < reps; ++rep)
        for (std::size_t i = 0; i < candidates.size(); ++i) {
          if (!ready[i]) continue;
          // The batch rows read untimed first: in the step each product's x
          // was written by the op just before it (the norm, the attention,
          // silu_mul), so it is in cache there while the weight is not. Left
          // cold, it cost the kernel about 0.02 of the limit at m >= 4 on the
          // k = 2048 shapes (bench/archive/2026-12-04-gemm-batch-rows-warm).
          g_sink = g_sink + sum_floats(work.x, m * shape.k);
          const auto start = Clock::now();
          candidates[i].run(work, m, rep < 0 ? 0 : copy);
          const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
          if (rep >= 0) {
            ms[i].push_back(elapsed);
            copy = (copy + 1) % copies;
          } else if (i >= kKept) {
            const float* expected = i == kKept ? packed_reference.data() : reference.data();
            const ProductError error = compare(work.y, candidates[i].writes_transpose, expected, m, shape.n);
            if (!error.right()) {
              fmt::print(stderr, "bench_cpu_gemm: {} is wrong on {} {} m = {}: |y - OpenBLAS's| up to {:.3g}, more "
                         "than {:.3g} ({} of the largest |y|)\n",
                         candidates[i].name, shape.model, shape.name, m, error.largest, error.bound,
                         kRelativeTolerance);
              ready[i] = false;
              wrong[i] = true;
              all_right = false;
            }
          }
        }
      const double t_read = median(ms[kRead]), t_fma = median(ms[kFma]);
      const double limit = std::max(t_read, t_fma);
      std::string line = fmt::format("{:<13} {:<9} {:>3} {:>9.3f} {:>8.3f} {:>9.2f} {:>8.2f} {:>8.3f}", shape.model,
                                     shape.name, m, limit, t_fma / t_read, static_cast<double>(bytes) / t_read / 1e6,
                                     static_cast<double>(bytes) / median(ms[kReadOneStream]) / 1e6,
                                     limit / median(ms[kReadWithFmas]));
      for (std::size_t i = kKept; i < candidates.size(); ++i) {
        const std::size_t width = std::max<std::size_t>(8, candidates[i].name.size());
        line += ready[i]   ? fmt::format(" {:>{}.3f}", limit / median(ms[i]), width)
                : wrong[i] ? fmt::format(" {:>{}}", "wrong", width)
                           : fmt::format(" {:>{}}", "-", width);
      }
      if (ready[kKept] && ready[openblas])
        line += fmt::format(" {:>14.3f}", median(ms[kKept]) / median(ms[openblas]));
      else
        line += fmt::format(" {:>14}", "-");
      fmt::print("{}\n", line);
      std::fflush(stdout);
      if (ready[kKept]) summary.add(shape.model, m, limit / median(ms[kKept]), limit / median(ms[kReadWithFmas]));
    }
  }
  fmt::print("{}", summary.format());
  return all_right ? 0 : 1;
}

}  // namespace
}  // namespace tpb::gemm_bench

int main(int argc, char** argv) {
  constexpr const char* kUsage =
      "usage: bench_cpu_gemm [--reps N] [--model NAME]\n"
      "  --reps N      interleaved calls per candidate and point (default 15)\n"
      "  --model NAME  llama-3.2-1b, llama-3.1-8b, smoke (two small shapes, seconds), or\n"
      "                ridge (one 64 MiB weight at m = 1 to 16: where flops start to limit);\n"
      "                default the two llama models (about 7 GiB of memory)\n";
  int reps = 15;
  std::string model;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (flag != "--reps" && flag != "--model") {
      fmt::print(stderr, "bench_cpu_gemm: unknown argument '{}'\n{}", flag, kUsage);
      return 2;
    }
    if (i + 1 == argc) {
      fmt::print(stderr, "bench_cpu_gemm: no value after {}\n{}", flag, kUsage);
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--model") {
      model = value;
      continue;
    }
    char* end = nullptr;
    const long parsed = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || parsed < 1 || parsed > 100000) {
      fmt::print(stderr, "bench_cpu_gemm: --reps '{}' is not a whole number from 1 to 100000\n", value);
      return 2;
    }
    reps = static_cast<int>(parsed);
  }
  return tpb::gemm_bench::run(reps, model);
}
