// The CUDA backend (cuda_backend.hpp): checks shapes and storage types, then
// hands raw pointers to the launchers of this folder.
#include "tp_decoder/cuda/cuda_backend.hpp"

#include <fmt/format.h>

#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_info.hpp"                // cuda_error_line
#include "tp_decoder/cuda/attention.cuh"       // kv_write, decode_attention
#include "tp_decoder/cuda/attention_plan.hpp"  // plan_attention
#include "tp_decoder/cuda/elementwise.cuh"     // add_inplace, broadcast_rows, silu_mul
#include "tp_decoder/cuda/gemm.cuh"            // linear
#include "tp_decoder/cuda/rmsnorm.cuh"         // rmsnorm
#include "tp_decoder/cuda/rope.cuh"            // rope
#include "tp_decoder/cuda/synthetic_fill.cuh"  // fill_synthetic
#include "tp_decoder/cuda/token.cuh"           // embedding, argmax

namespace tpb {
namespace {

using bf16 = __nv_bfloat16;

bf16* as_bf16(Tensor& t) { return static_cast<bf16*>(t.data); }
const bf16* as_bf16(const Tensor& t) { return static_cast<const bf16*>(t.data); }

void expect(const Tensor& t, std::int64_t rows, std::int64_t cols, ElementType type, const char* op, const char* what) {
  TPB_CHECK(t.data != nullptr && t.rows == rows && t.cols == cols && t.type == type,
            fmt::format("cuda {}: {} is ({}, {}) {}, expected ({}, {}) {}", op, what, t.rows, t.cols, to_string(t.type),
                        rows, cols, to_string(type)));
}

int to_int(std::int64_t value, const char* what) {
  TPB_CHECK(value >= 0 && value <= 0x7fffffff, fmt::format("cuda: {} ({}) exceeds the int range", what, value));
  return static_cast<int>(value);
}

// q, k, v packed in one row per sequence ([q | k | v], attention_shape.hpp).
gpu::QkvLayout packed_layout(const AttentionShape& s) {
  const int q_cols = s.q_heads * s.head_dim;
  const int kv_cols = s.kv_heads * s.head_dim;
  return gpu::QkvLayout{q_cols + 2 * kv_cols, q_cols, q_cols + kv_cols};
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    int count = 0;
    const cudaError_t counted = cudaGetDeviceCount(&count);
    if (counted != cudaSuccess || count == 0) {
      cudaGetLastError();  // clear the sticky error
      const cudaError_t status = counted != cudaSuccess ? counted : cudaErrorNoDevice;
      throw_error("CUDA", status, "--backend cuda: no usable CUDA device: " + cuda_error_line("cudaGetDeviceCount", status),
                  __FILE__, __LINE__);
    }
    CUDA_CHECK(cudaGetDevice(&device_));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    device_name_ = prop.name;
    compute_capability_ = prop.major * 10 + prop.minor;
    sm_count_ = prop.multiProcessorCount;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));  // capturable, unlike the legacy stream
    CUBLAS_CHECK(cublasCreate(&cublas_));
    CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
    gpu::use_step_numerics(cublas_);
    CUDA_CHECK(cudaMalloc(&cublas_workspace_, kCublasWorkspaceBytes));
    CUBLAS_CHECK(cublasSetWorkspace(cublas_, cublas_workspace_, kCublasWorkspaceBytes));
  }

  ~CudaBackend() override {
    // Destructors must not throw: errors here are ignored (the process is ending or already failing).
    graph_release();
    cudaFree(attention_scratch_);
    cublasDestroy(cublas_);
    cudaFree(cublas_workspace_);
    cudaStreamDestroy(stream_);
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return "cuda"; }
  std::string device_description() const override {
    int cublas_version = 0;
    cublasGetVersion(cublas_, &cublas_version);
    return fmt::format("cuda bf16, {} (sm_{}, {} SMs), cuBLAS {}.{}.{}", device_name_, compute_capability_, sm_count_,
                       cublas_version / 10000, cublas_version % 10000 / 100, cublas_version % 100);  // 130100 -> 13.1.0
  }
  MemoryKind memory_kind() const override { return MemoryKind::device; }
  ElementType storage_type(TensorRole role) const override {
    switch (role) {
      case TensorRole::weight:
      case TensorRole::activation:
      case TensorRole::kv_cache:
        return ElementType::bf16;
      case TensorRole::logits:
        return ElementType::f32;  // argmax over fp32: fewer ties than bf16's 8 bits
      case TensorRole::table:
        return ElementType::f32;  // RoPE frequencies: see rope()
      case TensorRole::tokens:
        return ElementType::i32;
    }
    return ElementType::bf16;
  }
  bool host_synchronous() const override { return false; }

  // --- buffers ------------------------------------------------------------------
  Tensor allocate(std::int64_t rows, std::int64_t cols, TensorRole role) override {
    Tensor t = shaped(rows, cols, role);
    CUDA_CHECK(cudaMalloc(&t.data, t.bytes()));
    // As on the CPU: weights and caches are filled right away, the rest starts at zero.
    if (role != TensorRole::weight && role != TensorRole::kv_cache)
      CUDA_CHECK(cudaMemsetAsync(t.data, 0, t.bytes(), stream_));
    return t;
  }
  // Runs in OwnedTensor's destructor, also while an exception unwinds out of a
  // capture or after a sticky CUDA error: it must not throw (that would end the
  // process before the original error is reported), so errors are ignored here;
  // a real one surfaces at the next checked call.
  void release(Tensor& t) override {
    abandon_capture();
    cudaStreamSynchronize(stream_);  // no queued kernel may still use it
    cudaFree(t.data);
    t.data = nullptr;
  }
  void upload(Tensor& dst, const float* src) override {
    const auto n = static_cast<std::size_t>(dst.numel());
    if (dst.type == ElementType::f32) {
      copy_blocking(dst.data, src, dst.bytes(), cudaMemcpyHostToDevice);
      return;
    }
    TPB_CHECK(dst.type == ElementType::bf16, "cuda upload: destination is a token tensor (use upload_tokens)");
    std::vector<bf16> staged(n);
    for (std::size_t i = 0; i < n; ++i) staged[i] = __float2bfloat16(src[i]);  // round to nearest even
    copy_blocking(dst.data, staged.data(), dst.bytes(), cudaMemcpyHostToDevice);
  }
  void download(const Tensor& src, float* dst) override {
    const auto n = static_cast<std::size_t>(src.numel());
    if (src.type == ElementType::f32) {
      copy_blocking(dst, src.data, src.bytes(), cudaMemcpyDeviceToHost);
      return;
    }
    TPB_CHECK(src.type == ElementType::bf16, "cuda download: source is a token tensor (use download_tokens)");
    std::vector<bf16> staged(n);
    copy_blocking(staged.data(), src.data, src.bytes(), cudaMemcpyDeviceToHost);
    for (std::size_t i = 0; i < n; ++i) dst[i] = __bfloat162float(staged[i]);
  }
  void upload_tokens(Tensor& dst, const std::int32_t* src) override {
    TPB_CHECK(dst.type == ElementType::i32, "cuda upload_tokens: destination is not a token tensor");
    copy_blocking(dst.data, src, dst.bytes(), cudaMemcpyHostToDevice);
  }
  void download_tokens(const Tensor& src, std::int32_t* dst) override {
    TPB_CHECK(src.type == ElementType::i32, "cuda download_tokens: source is not a token tensor");
    copy_blocking(dst, src.data, src.bytes(), cudaMemcpyDeviceToHost);
  }

  void fill_synthetic(Tensor& dst, std::int64_t dst_row_begin, const TensorSlice& slice, std::uint64_t seed,
                      std::uint64_t tensor_key, SyntheticInit init) override {
    TPB_CHECK(dst.data && dst.cols == slice.cols && dst_row_begin >= 0 && dst_row_begin + slice.rows <= dst.rows,
              fmt::format("cuda fill_synthetic: slice ({} x {}) does not fit rows {}.. of a ({}, {}) tensor",
                          slice.rows, slice.cols, dst_row_begin, dst.rows, dst.cols));
    const std::size_t first = static_cast<std::size_t>(dst_row_begin) * static_cast<std::size_t>(dst.cols);
    if (dst.type == ElementType::bf16)
      gpu::fill_synthetic(as_bf16(dst) + first, slice, seed, tensor_key, init, stream_);
    else if (dst.type == ElementType::f32)
      gpu::fill_synthetic(static_cast<float*>(dst.data) + first, slice, seed, tensor_key, init, stream_);
    else
      TPB_CHECK(false, "cuda fill_synthetic: token tensors hold no synthetic values");
  }

  // --- operations -------------------------------------------------------------------
  void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) override {
    expect(tokens, 1, tokens.cols, ElementType::i32, "embedding", "tokens");
    expect(table, table.rows, table.cols, ElementType::bf16, "embedding", "table");
    expect(out, tokens.cols, table.cols, ElementType::bf16, "embedding", "out");
    gpu::embedding(as_bf16(out), static_cast<const std::int32_t*>(tokens.data), as_bf16(table),
                   to_int(tokens.cols, "batch"), to_int(table.cols, "hidden"), to_int(table.rows, "vocab"), stream_);
  }

  void rmsnorm(Tensor& out, const Tensor& in, const Tensor& gain, float eps) override {
    expect(in, in.rows, in.cols, ElementType::bf16, "rmsnorm", "in");
    expect(out, in.rows, in.cols, ElementType::bf16, "rmsnorm", "out");
    expect(gain, 1, in.cols, ElementType::bf16, "rmsnorm", "gain");
    gpu::rmsnorm(as_bf16(out), as_bf16(in), as_bf16(gain), to_int(in.rows, "rows"), to_int(in.cols, "cols"), eps,
                 stream_);
  }

  void matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) override {
    expect(in, in.rows, weight.cols, ElementType::bf16, "matmul", "in");
    expect(weight, weight.rows, weight.cols, ElementType::bf16, "matmul", "weight");
    TPB_CHECK(out.type == ElementType::bf16 || out.type == ElementType::f32, "cuda matmul: out must be bf16 or f32");
    expect(out, in.rows, weight.rows, out.type, "matmul", "out");
    const int m = to_int(in.rows, "batch");
    const int n = to_int(weight.rows, "out features");
    if (bias) {
      expect(*bias, 1, weight.rows, ElementType::bf16, "matmul", "bias");
      TPB_CHECK(out.type == ElementType::bf16, "cuda matmul: a bias needs a bf16 output");
      gpu::broadcast_rows(as_bf16(out), as_bf16(*bias), m, n, stream_);
    }
    gpu::linear(cublas_, out.data, out.type == ElementType::f32 ? CUDA_R_32F : CUDA_R_16BF, as_bf16(in),
                as_bf16(weight), m, n, to_int(in.cols, "in features"), bias != nullptr);
  }

  void rope(Tensor& qkv, const AttentionShape& shape, int position, const Tensor& inv_freq) override {
    expect(qkv, shape.batch, qkv_cols(shape), ElementType::bf16, "rope", "qkv");
    // fp32 frequencies: in bf16 the angle position * inv_freq would be off by up to position * 2^-9 rad.
    expect(inv_freq, 1, shape.head_dim / 2, ElementType::f32, "rope", "inv_freq");
    const gpu::RopeShape rope_shape{shape.batch, to_int(qkv.cols, "qkv columns"), shape.q_heads, shape.kv_heads,
                                    shape.head_dim};
    gpu::rope(as_bf16(qkv), rope_shape, static_cast<const float*>(inv_freq.data), position, stream_);
  }

  void kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape,
                int position) override {
    expect(qkv, shape.batch, qkv_cols(shape), ElementType::bf16, "kv_write", "qkv");
    expect(k_cache, shape.batch, cache_cols(shape), ElementType::bf16, "kv_write", "k_cache");
    expect(v_cache, shape.batch, cache_cols(shape), ElementType::bf16, "kv_write", "v_cache");
    gpu::kv_write(as_bf16(k_cache), as_bf16(v_cache), as_bf16(qkv), packed_layout(shape), shape, position, stream_);
  }

  void attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                 const AttentionShape& shape, int n_positions) override {
    expect(out, shape.batch, static_cast<std::int64_t>(shape.q_heads) * shape.head_dim, ElementType::bf16, "attention",
           "out");
    expect(qkv, shape.batch, qkv_cols(shape), ElementType::bf16, "attention", "qkv");
    expect(k_cache, shape.batch, cache_cols(shape), ElementType::bf16, "attention", "k_cache");
    expect(v_cache, shape.batch, cache_cols(shape), ElementType::bf16, "attention", "v_cache");
    const gpu::AttentionPlan plan = gpu::plan_attention(shape, n_positions, sm_count_);
    gpu::AttentionWorkspace workspace;
    if (plan.num_splits > 1) {
      float* scratch = attention_scratch(plan.partial_out_floats + 2 * plan.partial_stat_floats);
      workspace = gpu::AttentionWorkspace{scratch, scratch + plan.partial_out_floats,
                                          scratch + plan.partial_out_floats + plan.partial_stat_floats};
    }
    gpu::decode_attention(as_bf16(out), as_bf16(qkv), packed_layout(shape), as_bf16(k_cache), as_bf16(v_cache), shape,
                          n_positions, plan, workspace, stream_);
  }

  void silu_mul(Tensor& out, const Tensor& gate_up) override {
    TPB_CHECK(gate_up.cols % 2 == 0, "cuda silu_mul: gate_up has an odd number of columns");
    expect(gate_up, gate_up.rows, gate_up.cols, ElementType::bf16, "silu_mul", "gate_up");
    expect(out, gate_up.rows, gate_up.cols / 2, ElementType::bf16, "silu_mul", "out");
    const int n = to_int(out.cols, "intermediate");
    gpu::silu_mul(as_bf16(out), as_bf16(gate_up), as_bf16(gate_up) + n, to_int(out.rows, "batch"), n, 2 * n, stream_);
  }

  void add(Tensor& x, const Tensor& y) override {
    expect(x, x.rows, x.cols, ElementType::bf16, "add", "x");
    expect(y, x.rows, x.cols, ElementType::bf16, "add", "y");
    gpu::add_inplace(as_bf16(x), as_bf16(y), static_cast<std::size_t>(x.numel()), stream_);
  }

  // Mixture-of-experts layers are computed on the cpu backend only; refusing
  // here stops a MoE step at its first expert, before anything is timed.
  void weighted_rows(Tensor&, const Tensor&, const Tensor&, int, bool) override {
    throw UsageError("--backend cuda: mixture-of-experts layers are not implemented on cuda (use --backend cpu)");
  }

  void argmax(Tensor& tokens, const Tensor& logits, int shards) override {
    expect(tokens, 1, tokens.cols, ElementType::i32, "argmax", "tokens");
    expect(logits, shards * tokens.cols, logits.cols, ElementType::f32, "argmax", "logits");
    gpu::argmax(static_cast<std::int32_t*>(tokens.data), static_cast<const float*>(logits.data),
                to_int(tokens.cols, "batch"), to_int(logits.cols, "vocab per shard"), shards, stream_);
  }

  // --- timing and ordering -----------------------------------------------------------
  EventHandle create_event() override {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreate(&event));
    return event;
  }
  // Runs in destructors (StepTimeline): never throws, as release().
  void destroy_event(EventHandle event) override { cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
  void record_event(EventHandle event) override {
    CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), stream_));
  }
  double elapsed_us(EventHandle start, EventHandle end) override {
    CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(end)));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
    return static_cast<double>(ms) * 1000.0;
  }
  void synchronize() override { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  StreamHandle stream() override { return stream_; }

  // --- graphs ------------------------------------------------------------------------
  void capture_begin() override {
    TPB_CHECK(!capturing(), "cuda capture_begin: a capture is already open");
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    drop_graph();
    // Thread-local: only this thread's stream work is recorded; another thread's
    // CUDA calls neither join nor invalidate the capture.
    CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  }
  void capture_end() override {
    TPB_CHECK(capturing(), "cuda capture_end: no capture is open");
    CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&graph_exec_, graph_, 0));
  }
  void graph_launch() override {
    TPB_CHECK(graph_exec_ != nullptr, "cuda graph_launch: no graph captured (or the last one was invalidated)");
    CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_));
  }
  void graph_release() noexcept override {
    // Not checked: callers release on error paths too.
    abandon_capture();
    cudaStreamSynchronize(stream_);
    drop_graph();
  }

 private:
  bool capturing() const {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream_, &status));
    return status == cudaStreamCaptureStatusActive;
  }

  // Host <-> device copies ordered after everything issued on the stream, and
  // complete on return (the interface's upload/download are blocking).
  void copy_blocking(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Flash-decoding partials: grown on demand, never shrunk. A graph holds the
  // old pointer, so growing invalidates it; growing inside a capture is refused
  // (an eager step of the same shape sizes it first).
  float* attention_scratch(std::size_t floats) {
    if (floats <= attention_scratch_floats_) return attention_scratch_;
    TPB_CHECK(!capturing(),
              "cuda attention: scratch must grow during graph capture; run one eager step of this shape first");
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    drop_graph();
    CUDA_CHECK(cudaFree(attention_scratch_));
    attention_scratch_ = nullptr;
    attention_scratch_floats_ = 0;
    CUDA_CHECK(cudaMalloc(&attention_scratch_, floats * sizeof(float)));
    attention_scratch_floats_ = floats;
    return attention_scratch_;
  }

  // A capture left open by an exception: closed and discarded so the stream works again.
  void abandon_capture() {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream_, &status) != cudaSuccess || status == cudaStreamCaptureStatusNone) return;
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream_, &partial);
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();  // clear the (non-sticky) invalidated-capture error
  }

  void drop_graph() {
    if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
    if (graph_) cudaGraphDestroy(graph_);
    graph_exec_ = nullptr;
    graph_ = nullptr;
  }

  int device_ = 0;
  std::string device_name_;
  int compute_capability_ = 0;
  int sm_count_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  void* cublas_workspace_ = nullptr;
  float* attention_scratch_ = nullptr;
  std::size_t attention_scratch_floats_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace tpb
