#include "tp_decoder/cpu/cpu_backend.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include "common/error.hpp"
#include "tp_decoder/cpu/small_batch_gemm.hpp"
#include "tp_decoder/cpu/weight_arena.hpp"

namespace tpb {
namespace {

using Clock = std::chrono::steady_clock;

float* f32(Tensor& t) { return static_cast<float*>(t.data); }
const float* f32(const Tensor& t) { return static_cast<const float*>(t.data); }

// Shape preconditions, checked on every call: a wrong shape is a bug in the
// caller and must fail loudly, never read out of bounds.
void expect_shape(const Tensor& t, std::int64_t rows, std::int64_t cols, const char* op, const char* what) {
  TPB_CHECK(t.data != nullptr && t.rows == rows && t.cols == cols,
            fmt::format("cpu {}: {} is ({}, {}), expected ({}, {})", op, what, t.rows, t.cols, rows, cols));
}

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string device_description() const override {
    std::string plan;
    if (gemm_isa_ == GemmIsa::avx2_fma) {
      // The panels read side by side at each batch size (small_batch_gemm_plan),
      // as the plan has them: batch 9 and above read as 9 does.
      plan = ", panels read side by side at batch 1-9:";
      for (std::int64_t b = 1; b <= 9; ++b) plan += fmt::format(" {}", small_batch_gemm_plan(b).panels);
    }
    return fmt::format("cpu fp32, {} OpenMP threads, matmul: small-batch {} kernel on {}-row column panels{}",
                       omp_get_max_threads(), to_string(gemm_isa_), kGemmPanelRows, plan);
  }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  ElementType storage_type(TensorRole role) const override {
    return role == TensorRole::tokens ? ElementType::i32 : ElementType::f32;
  }
  bool host_synchronous() const override { return true; }

  Tensor allocate(std::int64_t rows, std::int64_t cols, TensorRole role) override {
    Tensor t = shaped(rows, cols, role);
    // 64-byte alignment for SIMD loads; aligned_alloc wants a multiple of it.
    const std::size_t bytes = (t.bytes() + 63) / 64 * 64;
    if (role == TensorRole::weight && arena_) t.data = arena_->take(bytes);
    if (!t.data) t.data = std::aligned_alloc(64, bytes);
    if (!t.data) throw_error("cpu", 0, fmt::format("out of host memory allocating {} bytes", bytes), __FILE__, __LINE__);
    // Weights and caches are filled right after allocation (by parallel first
    // touch); the rest starts at zero so no step reads garbage.
    if (role != TensorRole::weight && role != TensorRole::kv_cache) std::memset(t.data, 0, bytes);
    if (role == TensorRole::weight) packed_.insert(t.data);
    return t;
  }
  void release(Tensor& t) override {
    packed_.erase(t.data);
    if (arena_ && arena_->owns(t.data))
      arena_->give(t.data, (t.bytes() + 63) / 64 * 64);
    else
      std::free(t.data);
    t.data = nullptr;
  }
  void reserve_weights(std::int64_t bytes) override {
    TPB_CHECK(!arena_, "cpu reserve_weights: the weights are already reserved");
    TPB_CHECK(bytes > 0, fmt::format("cpu reserve_weights: {} bytes", bytes));
    arena_.emplace(static_cast<std::size_t>(bytes));
  }
  // Weights are seen in row-major order outside the backend: upload and
  // download convert, straight between the caller's buffer and the tensor.
  void upload(Tensor& dst, const float* src) override {
    TPB_CHECK(dst.type == ElementType::f32, "cpu upload: destination is not an f32 tensor");
    if (packed(dst))
      pack_weight_rows(dst.rows, dst.cols, 0, dst.rows, src, f32(dst));
    else
      std::memcpy(dst.data, src, dst.bytes());
  }
  void download(const Tensor& src, float* dst) override {
    TPB_CHECK(src.type == ElementType::f32, "cpu download: source is not an f32 tensor");
    if (packed(src))
      unpack_weight_rows(src.rows, src.cols, 0, src.rows, f32(src), dst);
    else
      std::memcpy(dst, src.data, src.bytes());
  }
  void upload_tokens(Tensor& dst, const std::int32_t* src) override {
    TPB_CHECK(dst.type == ElementType::i32, "cpu upload_tokens: destination is not a token tensor");
    std::memcpy(dst.data, src, dst.bytes());
  }
  void download_tokens(const Tensor& src, std::int32_t* dst) override {
    TPB_CHECK(src.type == ElementType::i32, "cpu download_tokens: source is not a token tensor");
    std::memcpy(dst, src.data, src.bytes());
  }

  void fill_synthetic(Tensor& dst, std::int64_t dst_row_begin, const TensorSlice& slice, std::uint64_t seed,
                      std::uint64_t tensor_key, SyntheticInit init) override {
    TPB_CHECK(dst.cols == slice.cols && dst_row_begin >= 0 && dst_row_begin + slice.rows <= dst.rows,
              fmt::format("cpu fill_synthetic: slice ({} x {}) does not fit rows {}.. of a ({}, {}) tensor", slice.rows,
                          slice.cols, dst_row_begin, dst.rows, dst.cols));
    // A weight's values go straight to their packed places: no row-major
    // copy is ever held beside it.
    float* out = f32(dst);
    const bool to_packed = packed(dst);
    const std::int64_t rows = slice.rows;
    const std::int64_t cols = slice.cols;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t row = dst_row_begin + r;
        out[to_packed ? packed_weight_offset(dst.rows, cols, row, c) : row * cols + c] =
            synthetic_value(seed, tensor_key, static_cast<std::uint64_t>(slice.row_begin + r),
                            static_cast<std::uint64_t>(slice.col_begin + c),
                            static_cast<std::uint64_t>(slice.global_cols), init);
      }
  }

  void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) override {
    expect_shape(out, tokens.cols, table.cols, "embedding", "out");
    const auto* ids = static_cast<const std::int32_t*>(tokens.data);
    for (std::int64_t b = 0; b < tokens.cols; ++b) {
      TPB_CHECK(ids[b] >= 0 && ids[b] < table.rows, fmt::format("cpu embedding: token {} outside the vocabulary", ids[b]));
      if (packed(table))
        unpack_weight_rows(table.rows, table.cols, ids[b], 1, f32(table), f32(out) + b * out.cols);
      else
        std::memcpy(f32(out) + b * out.cols, f32(table) + ids[b] * table.cols,
                    static_cast<std::size_t>(table.cols) * 4);
    }
  }

  void rmsnorm(Tensor& out, const Tensor& in, const Tensor& gain, float eps) override {
    expect_shape(out, in.rows, in.cols, "rmsnorm", "out");
    expect_shape(gain, 1, in.cols, "rmsnorm", "gain");
    const std::int64_t n = in.cols;
    for (std::int64_t b = 0; b < in.rows; ++b) {
      const float* x = f32(in) + b * n;
      float* y = f32(out) + b * n;
      float sum_squares = 0.0f;
#pragma omp simd reduction(+ : sum_squares)
      for (std::int64_t i = 0; i < n; ++i) sum_squares += x[i] * x[i];
      const float inv_rms = 1.0f / std::sqrt(sum_squares / static_cast<float>(n) + eps);
      const float* g = f32(gain);
#pragma omp simd
      for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] * inv_rms * g[i];
    }
  }

  void matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) override {
    expect_shape(out, in.rows, weight.rows, "matmul", "out");
    TPB_CHECK(in.cols == weight.cols, fmt::format("cpu matmul: in has {} columns, weight has {}", in.cols, weight.cols));
    const std::int64_t m = in.rows;
    const std::int64_t n = weight.rows;
    const std::int64_t k = in.cols;
    if (bias) expect_shape(*bias, 1, weight.rows, "matmul", "bias");
    TPB_CHECK(packed(weight), "cpu matmul: the weight was not allocated as a TensorRole::weight tensor");
    small_batch_gemm(gemm_isa_, m, n, k, f32(in), f32(weight), bias ? f32(*bias) : nullptr, f32(out));
  }

  void rope(Tensor& qkv, const AttentionShape& shape, int position, const Tensor& inv_freq) override {
    const int half = shape.head_dim / 2;
    expect_shape(qkv, shape.batch, qkv_cols(shape), "rope", "qkv");
    expect_shape(inv_freq, 1, half, "rope", "inv_freq");
    cos_sin_.resize(static_cast<std::size_t>(2 * half));
    for (int i = 0; i < half; ++i) {
      const float angle = static_cast<float>(position) * f32(inv_freq)[i];
      cos_sin_[static_cast<std::size_t>(i)] = std::cos(angle);
      cos_sin_[static_cast<std::size_t>(half + i)] = std::sin(angle);
    }
    const int rotated_heads = shape.q_heads + shape.kv_heads;  // Q heads, then K heads; V is not rotated
    for (int b = 0; b < shape.batch; ++b)
      for (int h = 0; h < rotated_heads; ++h) {
        float* v = f32(qkv) + b * qkv.cols + static_cast<std::int64_t>(h) * shape.head_dim;
        for (int i = 0; i < half; ++i) {
          const float c = cos_sin_[static_cast<std::size_t>(i)];
          const float s = cos_sin_[static_cast<std::size_t>(half + i)];
          const float x0 = v[i];
          const float x1 = v[i + half];
          v[i] = x0 * c - x1 * s;
          v[i + half] = x1 * c + x0 * s;
        }
      }
  }

  void kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape,
                int position) override {
    expect_shape(qkv, shape.batch, qkv_cols(shape), "kv_write", "qkv");
    expect_shape(k_cache, shape.batch, cache_cols(shape), "kv_write", "k_cache");
    expect_shape(v_cache, shape.batch, cache_cols(shape), "kv_write", "v_cache");
    TPB_CHECK(position >= 0 && position < shape.positions,
              fmt::format("cpu kv_write: position {} outside a cache of {}", position, shape.positions));
    const std::int64_t hd = shape.head_dim;
    const std::size_t head_bytes = static_cast<std::size_t>(hd) * 4;
    for (int b = 0; b < shape.batch; ++b)
      for (int h = 0; h < shape.kv_heads; ++h) {
        const float* k = f32(qkv) + b * qkv.cols + (shape.q_heads + h) * hd;
        const float* v = k + shape.kv_heads * hd;
        const std::int64_t at = ((static_cast<std::int64_t>(b) * shape.kv_heads + h) * shape.positions + position) * hd;
        std::memcpy(f32(k_cache) + at, k, head_bytes);
        std::memcpy(f32(v_cache) + at, v, head_bytes);
      }
  }

  void attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                 const AttentionShape& shape, int n_positions) override {
    expect_shape(out, shape.batch, static_cast<std::int64_t>(shape.q_heads) * shape.head_dim, "attention", "out");
    expect_shape(qkv, shape.batch, qkv_cols(shape), "attention", "qkv");
    expect_shape(k_cache, shape.batch, cache_cols(shape), "attention", "k_cache");
    expect_shape(v_cache, shape.batch, cache_cols(shape), "attention", "v_cache");
    TPB_CHECK(n_positions >= 1 && n_positions <= shape.positions && shape.q_heads % shape.kv_heads == 0,
              fmt::format("cpu attention: {} positions in a cache of {}", n_positions, shape.positions));
    const int hd = shape.head_dim;
    const int group = shape.q_heads / shape.kv_heads;  // query heads per KV head (GQA)
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const int pairs = shape.batch * shape.q_heads;
    scores_.resize(static_cast<std::size_t>(pairs) * static_cast<std::size_t>(n_positions));
#pragma omp parallel for schedule(static)
    for (int pair = 0; pair < pairs; ++pair) {
      const int b = pair / shape.q_heads;
      const int h = pair % shape.q_heads;
      const float* q = f32(qkv) + b * qkv.cols + static_cast<std::int64_t>(h) * hd;
      const std::int64_t head_base =
          (static_cast<std::int64_t>(b) * shape.kv_heads + h / group) * shape.positions * hd;
      const float* keys = f32(k_cache) + head_base;
      const float* values = f32(v_cache) + head_base;
      float* score = scores_.data() + static_cast<std::size_t>(pair) * static_cast<std::size_t>(n_positions);
      float max_score = -std::numeric_limits<float>::infinity();
      for (int p = 0; p < n_positions; ++p) {
        const float* key = keys + static_cast<std::int64_t>(p) * hd;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int i = 0; i < hd; ++i) dot += q[i] * key[i];
        score[p] = dot * scale;
        max_score = std::max(max_score, score[p]);
      }
      float total = 0.0f;
      for (int p = 0; p < n_positions; ++p) {
        score[p] = std::exp(score[p] - max_score);
        total += score[p];
      }
      float* o = f32(out) + b * out.cols + static_cast<std::int64_t>(h) * hd;
      std::fill(o, o + hd, 0.0f);
      const float inv_total = 1.0f / total;
      for (int p = 0; p < n_positions; ++p) {
        const float weight = score[p] * inv_total;
        const float* value = values + static_cast<std::int64_t>(p) * hd;
#pragma omp simd
        for (int i = 0; i < hd; ++i) o[i] += weight * value[i];
      }
    }
  }

  void silu_mul(Tensor& out, const Tensor& gate_up) override {
    expect_shape(out, gate_up.rows, gate_up.cols / 2, "silu_mul", "out");
    TPB_CHECK(gate_up.cols % 2 == 0, "cpu silu_mul: gate_up has an odd number of columns");
    const std::int64_t n = out.cols;
    for (std::int64_t b = 0; b < out.rows; ++b) {
      const float* gate = f32(gate_up) + b * gate_up.cols;
      const float* up = gate + n;
      float* y = f32(out) + b * n;
#pragma omp simd
      for (std::int64_t i = 0; i < n; ++i) y[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
    }
  }

  void add(Tensor& x, const Tensor& y) override {
    expect_shape(y, x.rows, x.cols, "add", "y");
    float* a = f32(x);
    const float* b = f32(y);
    const std::int64_t n = x.numel();
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) a[i] += b[i];
  }

  void weighted_rows(Tensor& out, const Tensor& in, const Tensor& scales, int scale_row, bool accumulate) override {
    expect_shape(in, out.rows, out.cols, "weighted_rows", "in");
    TPB_CHECK(scales.type == ElementType::f32 && scales.cols == out.rows && scale_row >= 0 && scale_row < scales.rows,
              fmt::format("cpu weighted_rows: row {} of a ({} x {}) scale table for {} rows", scale_row, scales.rows,
                          scales.cols, out.rows));
    const float* scale = f32(scales) + std::int64_t{scale_row} * scales.cols;
    const std::int64_t n = out.cols;
    for (std::int64_t b = 0; b < out.rows; ++b) {
      const float w = scale[b];
      const float* x = f32(in) + b * n;
      float* y = f32(out) + b * n;
      if (accumulate) {
#pragma omp simd
        for (std::int64_t i = 0; i < n; ++i) y[i] += w * x[i];
      } else {
#pragma omp simd
        for (std::int64_t i = 0; i < n; ++i) y[i] = w * x[i];
      }
    }
  }

  void argmax(Tensor& tokens, const Tensor& logits, int shards) override {
    const std::int64_t batch = tokens.cols;
    expect_shape(logits, shards * batch, logits.cols, "argmax", "logits");
    auto* ids = static_cast<std::int32_t*>(tokens.data);
    for (std::int64_t b = 0; b < batch; ++b) {
      float best = -std::numeric_limits<float>::infinity();
      std::int64_t best_index = 0;
      for (int s = 0; s < shards; ++s) {
        const float* row = f32(logits) + (s * batch + b) * logits.cols;
        for (std::int64_t j = 0; j < logits.cols; ++j)
          if (row[j] > best) {  // strict: the lowest index wins a tie
            best = row[j];
            best_index = s * logits.cols + j;
          }
      }
      ids[b] = static_cast<std::int32_t>(best_index);
    }
  }

  EventHandle create_event() override { return new Clock::time_point{}; }
  void destroy_event(EventHandle event) override { delete static_cast<Clock::time_point*>(event); }
  void record_event(EventHandle event) override { *static_cast<Clock::time_point*>(event) = Clock::now(); }
  double elapsed_us(EventHandle start, EventHandle end) override {
    return std::chrono::duration<double, std::micro>(*static_cast<Clock::time_point*>(end) -
                                                     *static_cast<Clock::time_point*>(start))
        .count();
  }
  void synchronize() override {}
  StreamHandle stream() override { return nullptr; }

  void capture_begin() override { no_graphs(); }
  void capture_end() override { no_graphs(); }
  void graph_launch() override { no_graphs(); }
  void graph_release() noexcept override {}  // nothing is ever captured

 private:
  [[noreturn]] static void no_graphs() {
    throw UsageError("--graph: the cpu backend has no step graphs (CUDA graphs need --backend cuda)");
  }

  bool packed(const Tensor& t) const { return packed_.count(t.data) != 0; }

  // Chosen once per process, so every step of a run (and every rank of a
  // machine) multiplies with the same kernel and order.
  const GemmIsa gemm_isa_ = small_batch_gemm_isa();
  // The data of every TensorRole::weight tensor: stored in the small-batch
  // kernel's panel order (small_batch_gemm.hpp), the same bytes as
  // row-major; a (1, n) vector is identical in both orders.
  std::unordered_set<const void*> packed_;
  // Where weights go once reserve_weights() was called: one pool for every
  // shard (weight_arena.hpp). Outlives every weight, as the backend does.
  std::optional<WeightArena> arena_;
  std::vector<float> scores_;   // attention scratch: (batch * q_heads, positions)
  std::vector<float> cos_sin_;  // RoPE: cos then sin of each frequency at the current position
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace tpb
