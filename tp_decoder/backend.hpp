#pragma once
// The backend interface: one table of operations with private context (as in
// ggml's backends), chosen at run time by name. The decode step
// (decode_step.hpp) is written once against it; "cpu" (tp_decoder/cpu/, fp32,
// OpenBLAS + OpenMP) and "cuda" (tp_decoder/cuda/, bf16 storage with fp32
// accumulation, cuBLAS + own kernels) implement it. An operation a backend
// cannot do throws UsageError naming the backend and the operation; no backend
// ever falls back to another silently.
//
// Tensors are opaque: the backend chooses the storage type for each role and
// owns the memory; the caller sees only shapes. Every operation runs on the
// backend's one stream in issue order; host_synchronous() backends finish each
// operation before returning.
//
// C++17-clean: included by .cu files.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tp_decoder/attention_shape.hpp"  // AttentionShape, qkv_cols, cache_cols
#include "collectives/communicator.hpp"       // MemoryKind, StreamHandle, DataType
#include "common/choices.hpp"                 // BackendKind
#include "tp_decoder/shard_plan.hpp"          // TensorSlice
#include "tp_decoder/synthetic_weights.hpp"   // SyntheticInit

namespace tpb {

enum class ElementType { f32, bf16, i32 };
std::size_t element_size(ElementType type);
std::string to_string(ElementType type);  // "f32", "bf16", "i32"
DataType comm_datatype(ElementType type);   // for Communicator calls; i32 is refused

// What a tensor is for; the backend picks its storage type from this.
enum class TensorRole {
  weight,      // matrices, norm gains, biases, embedding (CPU f32, CUDA bf16)
  activation,  // hidden states, QKV, MLP activations, all-reduce payloads
  kv_cache,    // K and V history of one layer
  logits,      // LM head output and the all-gathered logits
  tokens,      // token ids (always i32)
  table,       // small lookup tables kept exact (RoPE inverse frequencies): always f32
};
inline constexpr std::size_t kTensorRoleCount = static_cast<std::size_t>(TensorRole::table) + 1;  // table stays last

// A 2-D row-major tensor in backend memory; vectors are (1, n). Plain data:
// the backend that allocated it releases it.
struct Tensor {
  void* data = nullptr;  // backend memory: never dereferenced outside the backend
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  ElementType type = ElementType::f32;
  std::int64_t numel() const { return rows * cols; }
  std::size_t bytes() const { return static_cast<std::size_t>(numel()) * element_size(type); }
};

// An opaque timestamp on the backend's stream (host clock on CPU, cudaEvent_t on CUDA).
using EventHandle = void*;

class Backend {
 public:
  virtual ~Backend() = default;

  // --- identity -------------------------------------------------------------
  virtual std::string name() const = 0;                        // "cpu", "cuda"
  virtual std::string device_description() const = 0;          // "cpu fp32, OpenBLAS 0.3.21, 8 threads"
  virtual MemoryKind memory_kind() const = 0;                  // where tensors live (the communicator must agree)
  virtual ElementType storage_type(TensorRole role) const = 0;
  // True when every operation has finished when its call returns (CPU): host
  // timers around operations are then exact and cheap, so they are always on.
  virtual bool host_synchronous() const = 0;

  // --- buffers ----------------------------------------------------------------
  virtual Tensor allocate(std::int64_t rows, std::int64_t cols, TensorRole role) = 0;
  virtual void release(Tensor& tensor) = 0;  // sets data to nullptr
  // Sets aside `bytes` for every weight tensor allocated from now on, where
  // the backend places weights itself (cpu: tp_decoder/cpu/weight_arena.hpp,
  // so that every shard reads memory from one pool); weights beyond it are
  // allocated as before. Once per backend; a no-op where the device places
  // its own memory.
  virtual void reserve_weights(std::int64_t bytes) { (void)bytes; }
  // Host fp32 <-> storage type (rounded to nearest even for bf16). Blocking.
  virtual void upload(Tensor& dst, const float* src) = 0;
  virtual void download(const Tensor& src, float* dst) = 0;
  virtual void upload_tokens(Tensor& dst, const std::int32_t* src) = 0;
  virtual void download_tokens(const Tensor& src, std::int32_t* dst) = 0;

  // Rows [dst_row_begin, dst_row_begin + slice.rows) of `dst` become the rectangle
  // `slice` of the synthetic global tensor `tensor_key`: element (r, c) of the
  // rectangle is synthetic_value(seed, tensor_key, slice.row_begin + r,
  // slice.col_begin + c, slice.global_cols, init), rounded once to the storage
  // type. dst.cols == slice.cols. Lets fused tensors (QKV, gate|up) be filled
  // part by part.
  virtual void fill_synthetic(Tensor& dst, std::int64_t dst_row_begin, const TensorSlice& slice, std::uint64_t seed,
                              std::uint64_t tensor_key, SyntheticInit init) = 0;

  // --- operations (shapes in comments; b = batch) -----------------------------
  // out (b, hidden) = table (vocab, hidden) [tokens (1, b)]
  virtual void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) = 0;
  // out (b, n) = in (b, n) / sqrt(mean(in^2) + eps) * gain (1, n)
  virtual void rmsnorm(Tensor& out, const Tensor& in, const Tensor& gain, float eps) = 0;
  // out (b, n) = in (b, k) . weight (n, k)^T [+ bias (1, n)]; bias may be null.
  // GEMV when b == 1. fp32 accumulation on every backend.
  virtual void matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) = 0;
  // Rotates the Q and K heads of qkv in place for token `position`, pairing
  // element i with i + head_dim/2 of each head (Hugging Face rotate_half):
  //   angle_i = position * inv_freq (1, head_dim/2) [i]   (fp32, TensorRole::table; llama3 scaling is in inv_freq)
  virtual void rope(Tensor& qkv, const AttentionShape& shape, int position, const Tensor& inv_freq) = 0;
  // Copies the K and V parts of qkv into the caches at `position`.
  virtual void kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape,
                        int position) = 0;
  // out (b, q_heads * head_dim): per sequence and query head, softmax over
  // positions [0, n_positions) of q.k / sqrt(head_dim), times V.
  virtual void attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                         const AttentionShape& shape, int n_positions) = 0;
  // out (b, n) = silu(gate_up[:, :n]) * gate_up[:, n:]   (gate_up is (b, 2n))
  virtual void silu_mul(Tensor& out, const Tensor& gate_up) = 0;
  // x += y, elementwise (residual)
  virtual void add(Tensor& x, const Tensor& y) = 0;
  // Row r of out (b, n) becomes [out[r] +] scales[scale_row, r] * in[r]
  // (accumulate adds, otherwise overwrites). scales is an f32
  // (rows, b) TensorRole::table: a mixture-of-experts layer's routing weight
  // of each sequence for one expert (0 where the sequence is not routed to
  // it), or the shared expert's sigmoid gate.
  virtual void weighted_rows(Tensor& out, const Tensor& in, const Tensor& scales, int scale_row, bool accumulate) = 0;
  // tokens (1, b) = argmax over the vocabulary of logits laid out as the
  // all-gather leaves them: (shards * b, vocab_shard), shard s holding vocab
  // rows [s * vocab_shard, (s + 1) * vocab_shard). Ties: lowest vocab index.
  virtual void argmax(Tensor& tokens, const Tensor& logits, int shards) = 0;
  // Flops the step computes on the host between operations (a sparse
  // layer's routing), counted as phase_ledger.hpp counts: only the counting
  // backend (counting_backend.hpp) keeps them.
  virtual void host_flops(std::int64_t flops) { (void)flops; }

  // --- timing and ordering ------------------------------------------------------
  virtual EventHandle create_event() = 0;
  virtual void destroy_event(EventHandle event) = 0;
  virtual void record_event(EventHandle event) = 0;  // on the stream, after everything issued so far
  // Microseconds from `start` to `end`; waits for `end` to complete.
  virtual double elapsed_us(EventHandle start, EventHandle end) = 0;
  virtual void synchronize() = 0;  // waits for everything issued
  // What Communicator::all_reduce/all_gather take as `stream` (nullptr on CPU).
  virtual StreamHandle stream() = 0;

  // --- whole-step graphs (CUDA graphs; others throw UsageError) -----------------
  // Everything issued between capture_begin and capture_end (collectives on
  // stream() included) is recorded, not run; graph_launch replays it.
  virtual void capture_begin() = 0;
  virtual void capture_end() = 0;
  virtual void graph_launch() = 0;
  // Waits for the stream, then frees the captured graph and closes a capture
  // left open. Call it before the communicator whose collectives were captured
  // is destroyed: NCCL's ncclCommDestroy waits until every graph that captured
  // the communicator is gone, so a graph kept longer hangs the destroy.
  // Never throws; a no-op where nothing is held.
  virtual void graph_release() noexcept = 0;

 protected:
  // What every allocate starts from: a tensor of `role` in this backend's
  // storage type, its data not yet placed. Refuses an empty shape.
  Tensor shaped(std::int64_t rows, std::int64_t cols, TensorRole role) const;
};

// The backend of `kind`. UsageError for one this build lacks ("--backend
// cuda: this build has no CUDA support"). Each backend has
// its own factory, std::unique_ptr<Backend> make_<name>_backend(), declared in
// tp_decoder/<name>/<name>_backend.hpp; the CUDA one works on the device the
// rank is bound to (bootstrap_ranks with use_gpu).
std::unique_ptr<Backend> make_backend(BackendKind kind);
// The same by name as --backend spells it; UsageError for an unknown name.
std::unique_ptr<Backend> make_backend(const std::string& name);
// The backend of `kind` for running `config`: first a UsageError, in one
// line, where the backend does not implement a layer the model has
// (mixture-of-experts layers on cuda), before anything touches a device.
std::unique_ptr<Backend> make_backend(BackendKind kind, const ModelConfig& config);

// A whole tensor copied to the host: its f32 values (download) or, for T =
// std::int32_t, its token ids (download_tokens).
template <typename T = float>
std::vector<T> download_all(Backend& backend, const Tensor& src) {
  std::vector<T> values(static_cast<std::size_t>(src.numel()));
  if constexpr (std::is_same_v<T, std::int32_t>)
    backend.download_tokens(src, values.data());
  else
    backend.download(src, values.data());
  return values;
}

// Frees a tensor when it leaves scope (plain Tensor stays copyable for views).
class OwnedTensor {
 public:
  OwnedTensor() = default;
  OwnedTensor(Backend& backend, std::int64_t rows, std::int64_t cols, TensorRole role)
      : backend_(&backend), tensor_(backend.allocate(rows, cols, role)) {}
  ~OwnedTensor() { reset(); }
  OwnedTensor(OwnedTensor&& other) noexcept : backend_(other.backend_), tensor_(other.tensor_) {
    other.tensor_ = Tensor{};
  }
  OwnedTensor& operator=(OwnedTensor&& other) noexcept {
    if (this != &other) {
      reset();
      backend_ = other.backend_;
      tensor_ = other.tensor_;
      other.tensor_ = Tensor{};
    }
    return *this;
  }
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  Tensor& operator*() { return tensor_; }
  const Tensor& operator*() const { return tensor_; }
  Tensor* operator->() { return &tensor_; }
  const Tensor* operator->() const { return &tensor_; }

 private:
  void reset() {
    if (backend_ && tensor_.data) backend_->release(tensor_);
  }
  Backend* backend_ = nullptr;
  Tensor tensor_;
};

}  // namespace tpb
