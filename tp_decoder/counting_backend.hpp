#pragma once
// A backend with no memory that counts what is issued on it, so that the
// figures about a step come from the one description of the step that runs
// (build_decoder_weights, build_decode_state, decode_step) and not from a
// second list. Its tensors carry their shape and type and, in place of
// memory, a pointer to a marker of their role; nothing is computed, and what
// a download hands the host is made up (zeros, or router logits that route
// as told). Each operation is counted to the conventions of phase_ledger.hpp;
// each record_event closes the interval of what was issued since the last.
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <vector>

#include "collectives/communicator.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/memory_estimate.hpp"  // MemoryTypes
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/phase_ledger.hpp"     // PhaseCost, CollectiveCounts
#include "tp_decoder/shard_plan.hpp"

namespace tpb {

class CountingBackend final : public Backend {
 public:
  explicit CountingBackend(const MemoryTypes& types)
      : types_{types.weight, types.activation, types.kv_cache, types.logits, ElementType::i32, ElementType::f32} {}

  // What each record_event closed, in order; [0] is what came before the first.
  const std::vector<PhaseCost>& intervals() const { return intervals_; }
  // Bytes of tensors of `role` (of every role) allocated and not yet released.
  std::int64_t held_bytes(TensorRole role) const { return held_[static_cast<std::size_t>(role)]; }
  std::int64_t held_bytes() const { return std::accumulate(held_.begin(), held_.end(), std::int64_t{0}); }
  // Work issued beside the operations (a collective's), counted in the open interval.
  void count(std::int64_t read, std::int64_t written, std::int64_t flops) {
    open_.bytes_read += read;
    open_.bytes_written += written;
    open_.flops += flops;
  }
  // The router logits the i-th sparse layer downloads route every sequence
  // to experts_per_token consecutive experts of the first touched[i]
  // (wrapping round), so that the layer touches exactly touched[i]:
  // UsageError where its batch cannot touch that many.
  void route_to(const MoeConfig& moe, const std::vector<int>& touched) {
    moe_ = moe;
    touched_ = touched;
  }

  std::string name() const override { return "counting"; }
  std::string device_description() const override { return "counting (no memory, nothing computed)"; }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  ElementType storage_type(TensorRole role) const override { return types_[static_cast<std::size_t>(role)]; }
  bool host_synchronous() const override { return true; }

  Tensor allocate(std::int64_t rows, std::int64_t cols, TensorRole role) override;
  void release(Tensor& tensor) override;
  void upload(Tensor& dst, const float*) override { write(dst); }
  void download(const Tensor& src, float* dst) override;
  void upload_tokens(Tensor& dst, const std::int32_t*) override { write(dst); }
  void download_tokens(const Tensor& src, std::int32_t* dst) override { read(src); std::fill_n(dst, src.numel(), 0); }
  void fill_synthetic(Tensor&, std::int64_t, const TensorSlice&, std::uint64_t, std::uint64_t,
                      SyntheticInit) override {}

  void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) override;
  // Per row: x² summed (2n), the mean, + eps, sqrt and reciprocal (4), then × inv_rms × gain (2n).
  void rmsnorm(Tensor& out, const Tensor& in, const Tensor& gain, float) override {
    operation({&in, &gain}, out, in.rows * (4 * in.cols + 4));
  }
  void matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) override;
  void rope(Tensor& qkv, const AttentionShape& shape, int position, const Tensor& inv_freq) override;
  void kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape,
                int position) override;
  void attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                 const AttentionShape& shape, int n_positions) override;
  // Per element an exp, an add, a divide and a multiply.
  void silu_mul(Tensor& out, const Tensor& gate_up) override { operation({&gate_up}, out, 4 * out.numel()); }
  void add(Tensor& x, const Tensor& y) override { operation({&x, &y}, x, x.numel()); }
  void weighted_rows(Tensor& out, const Tensor& in, const Tensor& scales, int scale_row, bool accumulate) override;
  void argmax(Tensor& tokens, const Tensor& logits, int) override { operation({&logits}, tokens, logits.numel()); }
  void host_flops(std::int64_t flops) override { open_.flops += flops; }

  EventHandle create_event() override { return this; }
  void destroy_event(EventHandle) override {}
  void record_event(EventHandle) override {
    intervals_.push_back(open_);
    intervals_.back().intervals = 1;
    open_ = PhaseCost{};
  }
  double elapsed_us(EventHandle, EventHandle) override { return 0; }
  void synchronize() override {}
  StreamHandle stream() override { return nullptr; }

  void capture_begin() override { refuse("capture_begin"); }
  void capture_end() override { refuse("capture_end"); }
  void graph_launch() override { refuse("graph_launch"); }
  void graph_release() noexcept override {}

 private:
  [[noreturn]] static void refuse(const char* operation);
  // `elements` of `t` read (all of it by default); a weight's count as weight bytes too.
  void read(const Tensor& t, std::int64_t elements = -1);
  void write(const Tensor& t, std::int64_t elements = -1);
  // Every input read whole, `out` written whole, and `flops`.
  void operation(std::initializer_list<const Tensor*> inputs, const Tensor& out, std::int64_t flops);

  std::array<ElementType, kTensorRoleCount> types_;  // by role
  std::array<char, kTensorRoleCount> role_marker_{};  // a tensor's data points at its role's marker
  std::array<std::int64_t, kTensorRoleCount> held_{};
  PhaseCost open_;
  std::vector<PhaseCost> intervals_;
  MoeConfig moe_;
  std::vector<int> touched_;
  std::size_t routed_layers_ = 0;  // sparse layers routed so far
};

// A group of `size` ranks whose collectives only count, on `backend`: an
// all-reduce reads its buffer and overwrites it with the sum of `size`
// partials ((size − 1) adds per element); an all-gather reads this rank's
// shard and writes every rank's.
class CountingGroup final : public Communicator {
 public:
  CountingGroup(CountingBackend& backend, int size) : backend_(backend), size_(size) {}
  const CollectiveCounts& counts() const { return counts_; }

  std::string backend_name() const override { return "counting"; }
  int rank() const override { return 0; }
  int size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) override;
  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                  StreamHandle stream) override;
  void barrier() override {}
  void synchronize(StreamHandle) override {}
  std::unique_ptr<Communicator> split(int, int) override;
  void* allocate(std::size_t) override;
  void release(void*) override {}
  void copy_from_host(void*, const void*, std::size_t, StreamHandle) override {}
  void copy_to_host(void*, const void*, std::size_t, StreamHandle) override {}

 private:
  CountingBackend& backend_;
  int size_;
  CollectiveCounts counts_;
};

// What one rank of `plan` holds, counted by building its weights and then a
// decode state of one sequence with no history on a CountingBackend: every
// state tensor is b × (its row) or, for the KV cache, b × t × (its row), so
// this is the memory estimate's terms exactly.
struct StepFootprint {
  std::int64_t weights = 0;              // weight and table tensors (the RoPE table is built with the weights)
  std::int64_t state_per_sequence = 0;   // every other tensor but the KV cache, and the routing's host copies
  std::int64_t kv_per_sequence_token = 0;
};
StepFootprint step_footprint(const ModelConfig& config, const ShardPlan& plan, const MemoryTypes& types);

}  // namespace tpb
