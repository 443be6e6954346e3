#include "tp_decoder/counting_backend.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {

Tensor CountingBackend::allocate(std::int64_t rows, std::int64_t cols, TensorRole role) {
  Tensor t = shaped(rows, cols, role);
  t.data = &role_marker_[static_cast<std::size_t>(role)];
  held_[static_cast<std::size_t>(role)] += static_cast<std::int64_t>(t.bytes());
  return t;
}

void CountingBackend::release(Tensor& tensor) {
  held_[static_cast<std::size_t>(static_cast<char*>(tensor.data) - role_marker_.data())] -=
      static_cast<std::int64_t>(tensor.bytes());
  tensor.data = nullptr;
}

void CountingBackend::read(const Tensor& t, std::int64_t elements) {
  const std::int64_t bytes = (elements < 0 ? t.numel() : elements) * static_cast<std::int64_t>(element_size(t.type));
  open_.bytes_read += bytes;
  if (t.data == &role_marker_[static_cast<std::size_t>(TensorRole::weight)]) open_.weight_bytes_read += bytes;
}

void CountingBackend::write(const Tensor& t, std::int64_t elements) {
  open_.bytes_written += (elements < 0 ? t.numel() : elements) * static_cast<std::int64_t>(element_size(t.type));
}

void CountingBackend::operation(std::initializer_list<const Tensor*> inputs, const Tensor& out, std::int64_t flops) {
  for (const Tensor* t : inputs) read(*t);
  write(out);
  open_.flops += flops;
}

void CountingBackend::download(const Tensor& src, float* dst) {
  read(src);
  std::fill(dst, dst + src.numel(), 0.0f);
  if (touched_.empty() || src.cols != moe_.num_experts) return;  // not router logits
  // Sequence s prefers the top experts from s · top on, modulo the layer's
  // count n: the batch's windows cover exactly the first n experts.
  const std::size_t layer = routed_layers_++;
  TPB_CHECK(layer < touched_.size(), "counting backend: more sparse layers than routings given");
  const std::int64_t n = touched_[layer], top = moe_.experts_per_token;
  const std::int64_t most = std::min<std::int64_t>(moe_.num_experts, src.rows * top);
  if (n < top || n > most)
    throw UsageError(fmt::format("phase ledger: layer {} cannot touch {} experts: {} sequences of top-{} routing "
                                 "touch {} to {}", layer, n, src.rows, top, top, most));
  for (std::int64_t s = 0; s < src.rows; ++s)
    for (std::int64_t j = 0; j < top; ++j) dst[s * src.cols + (s * top + j) % n] = 1.0f;
}

void CountingBackend::embedding(Tensor& out, const Tensor& table, const Tensor& tokens) {
  read(tokens);
  read(table, out.numel());  // the b rows the tokens name
  write(out);
}

// A multiply-add per weight and row, and an add per output element when biased.
void CountingBackend::matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) {
  if (bias) read(*bias);
  operation({&weight, &in}, out, 2 * in.rows * weight.numel() + (bias ? out.numel() : 0));
}

// The Q and K heads rotated in place: an angle, its cos and its sin per
// frequency, and per rotated pair two products and a difference, two
// products and a sum (3 per value).
void CountingBackend::rope(Tensor& qkv, const AttentionShape& shape, int, const Tensor& inv_freq) {
  const std::int64_t rotated = std::int64_t{shape.batch} * (shape.q_heads + shape.kv_heads) * shape.head_dim;
  read(inv_freq);
  read(qkv, rotated);
  write(qkv, rotated);
  count(0, 0, 3 * inv_freq.numel() + 3 * rotated);
}

void CountingBackend::kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape, int) {
  const std::int64_t per_cache = std::int64_t{shape.batch} * shape.kv_heads * shape.head_dim;
  read(qkv, 2 * per_cache);
  write(k_cache, per_cache);
  write(v_cache, per_cache);
}

// Q, and each KV head's t positions once however many query heads share it.
// Per (sequence, query head): q·k over t positions (2·t·hd), the scale, the
// running max, the subtraction, exp and sum of the softmax (5t), the sum's
// reciprocal (1), the normalised weights (t), and their sum over V (2·t·hd).
void CountingBackend::attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                                const AttentionShape& shape, int n_positions) {
  const std::int64_t t = n_positions;
  const std::int64_t history = std::int64_t{shape.batch} * shape.kv_heads * t * shape.head_dim;
  read(qkv, out.numel());
  read(k_cache, history);
  read(v_cache, history);
  write(out);
  count(0, 0, std::int64_t{shape.batch} * shape.q_heads * (4 * t * shape.head_dim + 6 * t + 1));
}

// A multiply per element, and an add where it accumulates (the sum read too).
void CountingBackend::weighted_rows(Tensor& out, const Tensor& in, const Tensor& scales, int, bool accumulate) {
  read(in);
  read(scales, in.rows);
  if (accumulate) read(out);
  write(out);
  count(0, 0, (accumulate ? 2 : 1) * in.numel());
}

void CountingBackend::refuse(const char* operation) {
  throw UsageError(fmt::format("counting backend: {} is not implemented", operation));
}

void CountingGroup::all_reduce(const void*, void*, std::size_t count, DataType type, StreamHandle) {
  const auto bytes = static_cast<std::int64_t>(count * element_size(type));
  backend_.count(bytes, bytes, (size_ - 1) * static_cast<std::int64_t>(count));
  counts_.ar_bytes = bytes;
  ++counts_.n_ar;
}

void CountingGroup::all_gather(const void*, void*, std::size_t count_per_rank, DataType type, StreamHandle) {
  const auto bytes = static_cast<std::int64_t>(count_per_rank * element_size(type));
  backend_.count(bytes, size_ * bytes, 0);
  counts_.ag_bytes = size_ * bytes;
  ++counts_.n_ag;
}

std::unique_ptr<Communicator> CountingGroup::split(int, int) { throw UsageError("counting group: no split"); }
void* CountingGroup::allocate(std::size_t) { throw UsageError("counting group: no allocate"); }

StepFootprint step_footprint(const ModelConfig& config, const ShardPlan& plan, const MemoryTypes& types) {
  CountingBackend backend(types);
  const DecoderWeights weights = build_decoder_weights(backend, config, plan, kDefaultSeed);
  StepFootprint f;
  f.weights = backend.held_bytes(TensorRole::weight) + backend.held_bytes(TensorRole::table);
  const DecodeState state = build_decode_state(backend, config, plan, 1, 0, kDefaultSeed);
  f.kv_per_sequence_token = backend.held_bytes(TensorRole::kv_cache);
  f.state_per_sequence =
      backend.held_bytes() - f.weights - f.kv_per_sequence_token +
      static_cast<std::int64_t>((state.moe.host_logits.size() + state.moe.host_weights.size()) * sizeof(float));
  return f;
}

}  // namespace tpb
