#pragma once
// The shared test fake: a backend that forwards every call to a real one
// (the CPU backend in the tests). A test backend derives from it and
// overrides only the calls it changes or records.
#include <memory>
#include <string>
#include <utility>

#include "tp_decoder/backend.hpp"

namespace tpb::test {

class DelegatingBackend : public Backend {
 public:
  explicit DelegatingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  std::string device_description() const override { return inner_->device_description(); }
  MemoryKind memory_kind() const override { return inner_->memory_kind(); }
  ElementType storage_type(TensorRole role) const override { return inner_->storage_type(role); }
  bool host_synchronous() const override { return inner_->host_synchronous(); }

  Tensor allocate(std::int64_t rows, std::int64_t cols, TensorRole role) override {
    return inner_->allocate(rows, cols, role);
  }
  void release(Tensor& tensor) override { inner_->release(tensor); }
  void reserve_weights(std::int64_t bytes) override { inner_->reserve_weights(bytes); }
  void upload(Tensor& dst, const float* src) override { inner_->upload(dst, src); }
  void download(const Tensor& src, float* dst) override { inner_->download(src, dst); }
  void upload_tokens(Tensor& dst, const std::int32_t* src) override { inner_->upload_tokens(dst, src); }
  void download_tokens(const Tensor& src, std::int32_t* dst) override { inner_->download_tokens(src, dst); }
  void fill_synthetic(Tensor& dst, std::int64_t dst_row_begin, const TensorSlice& slice, std::uint64_t seed,
                      std::uint64_t tensor_key, SyntheticInit init) override {
    inner_->fill_synthetic(dst, dst_row_begin, slice, seed, tensor_key, init);
  }

  void embedding(Tensor& out, const Tensor& table, const Tensor& tokens) override {
    inner_->embedding(out, table, tokens);
  }
  void rmsnorm(Tensor& out, const Tensor& in, const Tensor& gain, float eps) override {
    inner_->rmsnorm(out, in, gain, eps);
  }
  void matmul(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor* bias) override {
    inner_->matmul(out, in, weight, bias);
  }
  void rope(Tensor& qkv, const AttentionShape& shape, int position, const Tensor& inv_freq) override {
    inner_->rope(qkv, shape, position, inv_freq);
  }
  void kv_write(Tensor& k_cache, Tensor& v_cache, const Tensor& qkv, const AttentionShape& shape,
                int position) override {
    inner_->kv_write(k_cache, v_cache, qkv, shape, position);
  }
  void attention(Tensor& out, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                 const AttentionShape& shape, int n_positions) override {
    inner_->attention(out, qkv, k_cache, v_cache, shape, n_positions);
  }
  void silu_mul(Tensor& out, const Tensor& gate_up) override { inner_->silu_mul(out, gate_up); }
  void add(Tensor& x, const Tensor& y) override { inner_->add(x, y); }
  void weighted_rows(Tensor& out, const Tensor& in, const Tensor& scales, int scale_row, bool accumulate) override {
    inner_->weighted_rows(out, in, scales, scale_row, accumulate);
  }
  void argmax(Tensor& tokens, const Tensor& logits, int shards) override { inner_->argmax(tokens, logits, shards); }

  EventHandle create_event() override { return inner_->create_event(); }
  void destroy_event(EventHandle event) override { inner_->destroy_event(event); }
  void record_event(EventHandle event) override { inner_->record_event(event); }
  double elapsed_us(EventHandle start, EventHandle end) override { return inner_->elapsed_us(start, end); }
  void synchronize() override { inner_->synchronize(); }
  StreamHandle stream() override { return inner_->stream(); }

  void capture_begin() override { inner_->capture_begin(); }
  void capture_end() override { inner_->capture_end(); }
  void graph_launch() override { inner_->graph_launch(); }
  void graph_release() noexcept override { inner_->graph_release(); }

 private:
  std::unique_ptr<Backend> inner_;
};

}  // namespace tpb::test
