// The CUDA backend against the CPU backend, one operation at a time, over
// shapes that exercise each kernel's edge cases (single and split attention,
// head_dim 16 to 256, GQA groups 1 to 8, biased and fp32-output GEMMs).
// Skipped without a CUDA device.
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "tests/tp_decoder_cuda/twin_backends.hpp"
#include "tp_decoder/synthetic_weights.hpp"

namespace tpb::test {
namespace {

using ::testing::Values;

std::string dims(std::initializer_list<std::pair<const char*, int>> parts) {
  std::string name;
  for (const auto& [label, value] : parts) {
    if (!name.empty()) name += '_';
    name += label;
    name += std::to_string(value);
  }
  return name;
}

// Test names are the cases as PrintTo writes them (letters, digits and '_').
struct PrintedName {
  template <typename T>
  std::string operator()(const ::testing::TestParamInfo<T>& p) const {
    return ::testing::PrintToString(p.param);
  }
};

// --- RMSNorm -------------------------------------------------------------------------
struct NormCase {
  int rows;
  int cols;
};
void PrintTo(const NormCase& c, std::ostream* os) { *os << dims({{"r", c.rows}, {"c", c.cols}}); }
class CudaRmsnorm : public TwinBackends, public ::testing::WithParamInterface<NormCase> {};

TEST_P(CudaRmsnorm, MatchesCpu) {
  const NormCase c = GetParam();
  Twin in = make(c.rows, c.cols, TensorRole::activation, bf16_values(std::size_t(c.rows) * c.cols, 2.0f, 1));
  Twin gain = make(1, c.cols, TensorRole::weight, bf16_values(std::size_t(c.cols), 0.125f, 2, 1.0f));
  Twin out = zeros(c.rows, c.cols, TensorRole::activation);
  cpu_->rmsnorm(*out.cpu, *in.cpu, *gain.cpu, 1e-5f);
  cuda_->rmsnorm(*out.cuda, *in.cuda, *gain.cuda, 1e-5f);
  EXPECT_TRUE(all_close(read_cuda(out), read_cpu(out), kBf16OutputRtol, 1e-6));
}
INSTANTIATE_TEST_SUITE_P(Shapes, CudaRmsnorm, Values(NormCase{1, 64}, NormCase{4, 4096}, NormCase{3, 1000}),
                         PrintedName());

// --- matmul (cuBLAS) ------------------------------------------------------------------
struct MatmulCase {
  int m;
  int n;
  int k;
  bool bias;
  bool logits;  // fp32 output, as the LM head
};
void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << dims({{"m", c.m}, {"n", c.n}, {"k", c.k}}) << (c.bias ? "_bias" : "") << (c.logits ? "_f32out" : "");
}
class CudaMatmul : public TwinBackends, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(CudaMatmul, MatchesCpu) {
  const MatmulCase c = GetParam();
  Twin in = make(c.m, c.k, TensorRole::activation, bf16_values(std::size_t(c.m) * c.k, 1.0f, 3));
  Twin w = make(c.n, c.k, TensorRole::weight,
                bf16_values(std::size_t(c.n) * c.k, static_cast<float>(std::sqrt(3.0 / c.k)), 4));
  Twin bias = make(1, c.n, TensorRole::weight, bf16_values(std::size_t(c.n), 0.125f, 5));
  Twin out = zeros(c.m, c.n, c.logits ? TensorRole::logits : TensorRole::activation);
  cpu_->matmul(*out.cpu, *in.cpu, *w.cpu, c.bias ? &*bias.cpu : nullptr);
  cuda_->matmul(*out.cuda, *in.cuda, *w.cuda, c.bias ? &*bias.cuda : nullptr);
  // fp32 logits: only the summation order differs.
  EXPECT_TRUE(all_close(read_cuda(out), read_cpu(out), c.logits ? 1e-5 : kBf16OutputRtol, kSumOrderAtol));
}
INSTANTIATE_TEST_SUITE_P(Shapes, CudaMatmul,
                         Values(MatmulCase{1, 256, 512, false, false}, MatmulCase{8, 1000, 300, false, false},
                                MatmulCase{32, 512, 1024, true, false}, MatmulCase{1, 192, 96, true, false},
                                MatmulCase{3, 640, 256, false, true}),
                         PrintedName());

// --- RoPE, KV write, attention ------------------------------------------------------------
struct AttentionCase {
  int batch;
  int q_heads;
  int kv_heads;
  int head_dim;
  int positions;    // cache capacity
  int n_positions;  // attended (and the RoPE position + 1)
};
void PrintTo(const AttentionCase& c, std::ostream* os) {
  *os << dims({{"b", c.batch},
               {"q", c.q_heads},
               {"kv", c.kv_heads},
               {"d", c.head_dim},
               {"cap", c.positions},
               {"n", c.n_positions}});
}
class CudaAttentionOps : public TwinBackends, public ::testing::WithParamInterface<AttentionCase> {
 protected:
  AttentionShape shape() const {
    const AttentionCase& c = GetParam();
    return AttentionShape{c.batch, c.q_heads, c.kv_heads, c.head_dim, c.positions};
  }
  std::int64_t qkv_cols() const { return tpb::qkv_cols(shape()); }
  std::int64_t cache_cols() const { return tpb::cache_cols(shape()); }
};

TEST_P(CudaAttentionOps, RopeMatchesCpu) {
  const AttentionCase c = GetParam();
  Twin qkv = make(c.batch, qkv_cols(), TensorRole::activation, bf16_values(std::size_t(c.batch) * qkv_cols(), 1.0f, 6));
  std::vector<float> inv_freq(static_cast<std::size_t>(c.head_dim / 2));
  for (std::size_t i = 0; i < inv_freq.size(); ++i)
    inv_freq[i] = static_cast<float>(std::pow(500000.0, -2.0 * static_cast<double>(i) / c.head_dim));
  Twin table = make(1, c.head_dim / 2, TensorRole::table, inv_freq);
  const int position = c.n_positions - 1;
  cpu_->rope(*qkv.cpu, shape(), position, *table.cpu);
  cuda_->rope(*qkv.cuda, shape(), position, *table.cuda);
  EXPECT_TRUE(all_close(read_cuda(qkv), read_cpu(qkv), kBf16OutputRtol, 1e-6));
}

TEST_P(CudaAttentionOps, KvWriteCopiesExactly) {
  const AttentionCase c = GetParam();
  Twin qkv = make(c.batch, qkv_cols(), TensorRole::activation, bf16_values(std::size_t(c.batch) * qkv_cols(), 1.0f, 7));
  const std::size_t cache_n = std::size_t(c.batch) * cache_cols();
  Twin k_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 8));
  Twin v_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 9));
  const int position = c.n_positions - 1;
  cpu_->kv_write(*k_cache.cpu, *v_cache.cpu, *qkv.cpu, shape(), position);
  cuda_->kv_write(*k_cache.cuda, *v_cache.cuda, *qkv.cuda, shape(), position);
  EXPECT_EQ(read_cuda(k_cache), read_cpu(k_cache));
  EXPECT_EQ(read_cuda(v_cache), read_cpu(v_cache));
}

TEST_P(CudaAttentionOps, AttentionMatchesCpu) {
  const AttentionCase c = GetParam();
  Twin qkv =
      make(c.batch, qkv_cols(), TensorRole::activation, bf16_values(std::size_t(c.batch) * qkv_cols(), 1.0f, 10));
  const std::size_t cache_n = std::size_t(c.batch) * cache_cols();
  Twin k_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 11));
  Twin v_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 12));
  Twin out = zeros(c.batch, std::int64_t(c.q_heads) * c.head_dim, TensorRole::activation);
  cpu_->attention(*out.cpu, *qkv.cpu, *k_cache.cpu, *v_cache.cpu, shape(), c.n_positions);
  cuda_->attention(*out.cuda, *qkv.cuda, *k_cache.cuda, *v_cache.cuda, shape(), c.n_positions);
  EXPECT_TRUE(all_close(read_cuda(out), read_cpu(out), kBf16OutputRtol, kSumOrderAtol));
}

// The attention of a captured graph equals the eager result bit for bit
// (same kernels, same scratch: the split plan's scratch is sized by the eager call).
TEST_P(CudaAttentionOps, GraphReplayEqualsEager) {
  const AttentionCase c = GetParam();
  Twin qkv =
      make(c.batch, qkv_cols(), TensorRole::activation, bf16_values(std::size_t(c.batch) * qkv_cols(), 1.0f, 13));
  const std::size_t cache_n = std::size_t(c.batch) * cache_cols();
  Twin k_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 14));
  Twin v_cache = make(c.batch, cache_cols(), TensorRole::kv_cache, bf16_values(cache_n, 1.0f, 15));
  Twin out = zeros(c.batch, std::int64_t(c.q_heads) * c.head_dim, TensorRole::activation);
  cuda_->attention(*out.cuda, *qkv.cuda, *k_cache.cuda, *v_cache.cuda, shape(), c.n_positions);
  const std::vector<float> eager = read_cuda(out);
  const std::vector<float> cleared(eager.size(), 0.0f);
  cuda_->upload(*out.cuda, cleared.data());
  cuda_->capture_begin();
  cuda_->attention(*out.cuda, *qkv.cuda, *k_cache.cuda, *v_cache.cuda, shape(), c.n_positions);
  cuda_->capture_end();
  EXPECT_EQ(read_cuda(out), cleared) << "a captured operation must not run";
  cuda_->graph_launch();
  EXPECT_EQ(read_cuda(out), eager);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaAttentionOps,
                         Values(AttentionCase{1, 4, 2, 16, 5, 5},         // tiny, one chunk
                                AttentionCase{2, 8, 2, 64, 512, 300},     // split, stale cache beyond n unread
                                AttentionCase{1, 8, 1, 128, 4097, 4097},  // split, group of 8 (70B at TP-8)
                                AttentionCase{3, 7, 1, 256, 1000, 1000},  // head_dim 256, odd group (Qwen at TP-4)
                                AttentionCase{4, 32, 8, 128, 40, 40},     // Llama 8B heads, one chunk
                                AttentionCase{2, 4, 4, 32, 100, 1}),      // no GQA, a single position
                         PrintedName());

// --- elementwise -----------------------------------------------------------------------
struct RowsCols {
  int rows;
  int cols;
};
void PrintTo(const RowsCols& c, std::ostream* os) { *os << dims({{"r", c.rows}, {"c", c.cols}}); }
class CudaElementwise : public TwinBackends, public ::testing::WithParamInterface<RowsCols> {};

TEST_P(CudaElementwise, SiluMulMatchesCpu) {
  const RowsCols c = GetParam();
  Twin gate_up =
      make(c.rows, 2 * c.cols, TensorRole::activation, bf16_values(std::size_t(c.rows) * 2 * c.cols, 4.0f, 16));
  Twin out = zeros(c.rows, c.cols, TensorRole::activation);
  cpu_->silu_mul(*out.cpu, *gate_up.cpu);
  cuda_->silu_mul(*out.cuda, *gate_up.cuda);
  EXPECT_TRUE(all_close(read_cuda(out), read_cpu(out), kBf16OutputRtol, 1e-6));
}

TEST_P(CudaElementwise, AddMatchesCpu) {
  const RowsCols c = GetParam();
  const std::size_t n = std::size_t(c.rows) * c.cols;
  Twin x = make(c.rows, c.cols, TensorRole::activation, bf16_values(n, 3.0f, 17));
  Twin y = make(c.rows, c.cols, TensorRole::activation, bf16_values(n, 1.0f, 18));
  cpu_->add(*x.cpu, *y.cpu);
  cuda_->add(*x.cuda, *y.cuda);
  EXPECT_TRUE(all_close(read_cuda(x), read_cpu(x), kBf16OutputRtol, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaElementwise, Values(RowsCols{1, 64}, RowsCols{5, 3000}, RowsCols{32, 14336}),
                         PrintedName());

// --- embedding and argmax ----------------------------------------------------------------
class CudaTokens : public TwinBackends {};

TEST_F(CudaTokens, EmbeddingCopiesRowsExactly) {
  const int vocab = 100;
  const int hidden = 64;
  Twin table = make(vocab, hidden, TensorRole::weight, bf16_values(std::size_t(vocab) * hidden, 1.0f, 19));
  Twin ids = tokens({3, 99, 0});
  Twin out = zeros(3, hidden, TensorRole::activation);
  cpu_->embedding(*out.cpu, *table.cpu, *ids.cpu);
  cuda_->embedding(*out.cuda, *table.cuda, *ids.cuda);
  EXPECT_EQ(read_cuda(out), read_cpu(out));
}

class CudaArgmax : public TwinBackends, public ::testing::WithParamInterface<int> {};

// Shard-major logits (the all-gather's layout) with a planted tie across two
// shards: the lowest vocabulary index must win on both backends.
TEST_P(CudaArgmax, MatchesCpuAcrossShards) {
  const int shards = GetParam();
  const int batch = 3;
  const int vocab_shard = 50;
  std::vector<float> logits = bf16_values(std::size_t(shards) * batch * vocab_shard, 10.0f, 20);
  const auto at = [&](int sequence, int vocab_index) -> float& {
    const int shard = vocab_index / vocab_shard;
    return logits[(std::size_t(shard) * batch + sequence) * vocab_shard + vocab_index % vocab_shard];
  };
  const int tie_high = shards * vocab_shard - 1;  // last vocabulary entry, in the last shard
  at(1, 10) = 100.0f;
  at(1, tie_high) = 100.0f;
  at(2, tie_high) = 200.0f;
  Twin l = make(std::int64_t(shards) * batch, vocab_shard, TensorRole::logits, logits);
  Twin ids = tokens({-1, -1, -1});
  cpu_->argmax(*ids.cpu, *l.cpu, shards);
  cuda_->argmax(*ids.cuda, *l.cuda, shards);
  cuda_->synchronize();
  std::vector<std::int32_t> cpu_ids(batch), cuda_ids(batch);
  cpu_->download_tokens(*ids.cpu, cpu_ids.data());
  cuda_->download_tokens(*ids.cuda, cuda_ids.data());
  EXPECT_EQ(cuda_ids, cpu_ids);
  EXPECT_EQ(cuda_ids[1], 10);
  EXPECT_EQ(cuda_ids[2], tie_high);
}
INSTANTIATE_TEST_SUITE_P(Shards, CudaArgmax, Values(1, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           std::string name = "shards";
                           name += std::to_string(p.param);
                           return name;
                         });

// --- synthetic weights, events, graphs ------------------------------------------------------
class CudaBackendBasics : public TwinBackends {};

// A slice written into the middle of a tensor is the CPU slice rounded once to bf16.
TEST_F(CudaBackendBasics, SyntheticFillIsTheCpuValueRounded) {
  const TensorSlice slice{100, 600, 40, 37, 300, 300};
  const std::int64_t dst_row_begin = 5;
  const std::uint64_t key = synthetic_tensor_key(3, 2);
  const SyntheticInit init = linear_init(600);
  Twin dst = zeros(50, 300, TensorRole::weight);
  cpu_->fill_synthetic(*dst.cpu, dst_row_begin, slice, 42, key, init);
  cuda_->fill_synthetic(*dst.cuda, dst_row_begin, slice, 42, key, init);
  const std::vector<float> cpu = read_cpu(dst);
  const std::vector<float> cuda = read_cuda(dst);
  for (std::int64_t i = 0; i < std::int64_t(cpu.size()); ++i) {
    const bool filled = i / 300 >= dst_row_begin && i / 300 < dst_row_begin + slice.rows;
    ASSERT_EQ(cuda[std::size_t(i)], filled ? round_to_bf16(cpu[std::size_t(i)]) : 0.0f) << "element " << i;
  }
}

TEST_F(CudaBackendBasics, SyntheticFillOfAnF32TableIsExact) {
  const TensorSlice slice{1, 64, 0, 1, 0, 64};
  Twin dst = zeros(1, 64, TensorRole::table);
  cpu_->fill_synthetic(*dst.cpu, 0, slice, 7, synthetic_tensor_key(-1, 13), norm_gain_init());
  cuda_->fill_synthetic(*dst.cuda, 0, slice, 7, synthetic_tensor_key(-1, 13), norm_gain_init());
  EXPECT_EQ(read_cuda(dst), read_cpu(dst));
}

// x += y captured once and replayed twice: two rounded additions, nothing at capture.
TEST_F(CudaBackendBasics, GraphReplaysTheCapturedStep) {
  const std::vector<float> x0 = bf16_values(1000, 4.0f, 21);
  const std::vector<float> y = bf16_values(1000, 1.0f, 22);
  Twin x = make(10, 100, TensorRole::activation, x0);
  Twin dy = make(10, 100, TensorRole::activation, y);
  EXPECT_THROW(cuda_->graph_launch(), Error);
  // One eager launch of the kernel first, on a scratch tensor: with lazy module
  // loading (CUDA's default), a kernel's first launch loads its module, which
  // must not happen inside a capture.
  Twin scratch = make(10, 100, TensorRole::activation, x0);
  cuda_->add(*scratch.cuda, *dy.cuda);
  cuda_->synchronize();
  cuda_->capture_begin();
  cuda_->add(*x.cuda, *dy.cuda);
  cuda_->capture_end();
  EXPECT_EQ(read_cuda(x), x0);
  cuda_->graph_launch();
  cuda_->graph_launch();
  std::vector<float> expected(x0.size());
  for (std::size_t i = 0; i < x0.size(); ++i) expected[i] = round_to_bf16(round_to_bf16(x0[i] + y[i]) + y[i]);
  EXPECT_EQ(read_cuda(x), expected);
}

TEST_F(CudaBackendBasics, EventsTimeTheStream) {
  Twin x = make(64, 1024, TensorRole::activation, bf16_values(64 * 1024, 1.0f, 23));
  EventHandle start = cuda_->create_event();
  EventHandle end = cuda_->create_event();
  cuda_->record_event(start);
  for (int i = 0; i < 10; ++i) cuda_->add(*x.cuda, *x.cuda);
  cuda_->record_event(end);
  const double us = cuda_->elapsed_us(start, end);
  EXPECT_GT(us, 0.0);
  EXPECT_LT(us, 1e6);
  cuda_->destroy_event(start);
  cuda_->destroy_event(end);
}

TEST_F(CudaBackendBasics, StorageTypes) {
  EXPECT_EQ(cuda_->name(), "cuda");
  EXPECT_EQ(cuda_->memory_kind(), MemoryKind::device);
  EXPECT_EQ(cuda_->memory_kind(), decoder_memory(BackendKind::cuda));  // what is known before a backend exists
  EXPECT_FALSE(cuda_->host_synchronous());
  EXPECT_EQ(cuda_->storage_type(TensorRole::weight), ElementType::bf16);
  EXPECT_EQ(cuda_->storage_type(TensorRole::activation), ElementType::bf16);
  EXPECT_EQ(cuda_->storage_type(TensorRole::kv_cache), ElementType::bf16);
  EXPECT_EQ(cuda_->storage_type(TensorRole::logits), ElementType::f32);
  EXPECT_EQ(cuda_->storage_type(TensorRole::table), ElementType::f32);
  EXPECT_EQ(cuda_->storage_type(TensorRole::tokens), ElementType::i32);
}

TEST_F(CudaBackendBasics, WrongShapesAreRefused) {
  Twin in = zeros(2, 64, TensorRole::activation);
  Twin gain = zeros(1, 32, TensorRole::weight);
  Twin out = zeros(2, 64, TensorRole::activation);
  EXPECT_THROW(cuda_->rmsnorm(*out.cuda, *in.cuda, *gain.cuda, 1e-5f), Error);
  Twin bf16_table = zeros(1, 8, TensorRole::weight);  // RoPE frequencies in bf16 would be wrong: refused
  Twin qkv = zeros(1, 3 * 16, TensorRole::activation);
  EXPECT_THROW(cuda_->rope(*qkv.cuda, AttentionShape{1, 1, 1, 16, 4}, 0, *bf16_table.cuda), Error);
}

}  // namespace
}  // namespace tpb::test
