// The memory estimator against hand arithmetic, the ledger it feeds, and the
// promise between them: the batch the KV ledger admits is the largest one the
// pre-allocation check accepts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "predictor/kv_answer.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {
namespace {

ModelConfig config(const std::string& name) { return load_model_config(std::string(TPB_CONFIG_DIR) + "/" + name); }

TEST(MemoryEstimate, TinyLlamaCpuByHand) {
  // tiny-llama: hidden 64, intermediate 128, 2 layers, 4 heads, 2 KV heads of 16, vocabulary 256, untied, f32.
  const ModelConfig tiny = config("tiny-llama.json");
  const MemoryEstimate e = estimate_rank_memory(tiny, MemorySetup{BackendKind::cpu, backend_memory_types(BackendKind::cpu), 1, false}, 2, 127);
  // Per layer 64 + 64·64 (q) + 2·32·64 (k, v) + 64·64 (o) + 64 + 3·128·64 = 36,992 values; two layers, final
  // norm 64, LM head and embedding 256·64 each: 106,816 f32, plus the RoPE table of 8 f32.
  EXPECT_EQ(e.weights, 106'816 * 4 + 8 * 4);
  // K and V: 2 layers × 2 KV heads × 16 × 4 B × 2 = 512 B per token, 2 sequences of 128 tokens.
  EXPECT_EQ(e.kv_cache, 512 * 2 * 128);
  // Per sequence: 2 token ids, (3·64 + 8·16 + 4·16 + 3·128) f32, 256 logits and 256 gathered logits.
  EXPECT_EQ(e.activations, 2 * (2 * 4 + 768 * 4 + 512 * 4));
  // Attention scores (2 × 4 heads, 128 positions) f32, the RoPE cos|sin row of 16 f32, and the host copy of
  // both sequences' 256 logits for the NaN/Inf check.
  EXPECT_EQ(e.workspaces, 2 * 4 * 128 * 4 + 16 * 4 + 2 * 256 * 4);
  EXPECT_EQ(e.comm_buffers, 0);  // TP-1: nothing to reduce
  EXPECT_EQ(e.total(), e.weights + e.kv_cache + e.activations + e.workspaces);
}

TEST(MemoryEstimate, TpTwoHalvesTheShardAndAddsTheReductionBuffer) {
  const ModelConfig tiny = config("tiny-llama.json");
  const MemorySetup setup{BackendKind::cpu, backend_memory_types(BackendKind::cpu), 2, false};
  const MemoryEstimate e = estimate_rank_memory(tiny, setup, 4, 31);
  EXPECT_EQ(e.kv_cache, 256 * 4 * 32);          // one KV head of two: half of 512 B per token
  EXPECT_EQ(e.comm_buffers, 4 * 64 * 4);        // one b × hidden f32 temporary for the all-reduce
  MemorySetup checked = setup;
  checked.check = true;                          // --check adds TP-1's weights and state on the first rank
  EXPECT_GT(estimate_rank_memory(tiny, checked, 4, 31).weights, e.weights);
}

TEST(MemoryEstimate, LargestGridPointIsTheLargest) {
  const ModelConfig tiny = config("tiny-llama.json");
  const MemoryEstimate largest =
      largest_grid_estimate(tiny, MemorySetup{BackendKind::cpu, backend_memory_types(BackendKind::cpu), 1, false}, {1, 2}, {1, 8}, {16, 64});
  EXPECT_EQ(largest.tp, 1);
  EXPECT_EQ(largest.batch, 8);
  EXPECT_EQ(largest.context, 64);
}

TEST(MemoryEstimate, RefusesADegreeTheModelCannotShard) {
  EXPECT_THROW(memory_terms(config("tiny-llama.json"), MemorySetup{BackendKind::cpu, backend_memory_types(BackendKind::cpu), 3, false}),
               UsageError);
}

// Llama-3.1-70B in bf16: TP-1 holds all 70.55 B parameters, 131.4 GiB.
TEST(MemoryLedger, Llama70BWeightsDoNotFit120GAtTp1ButDoAtTp2) {
  const ModelConfig llama = config("llama-3.1-70b.json");
  const MemoryBudget budget = mem_per_device_budget("120G");
  const auto line_at = [&](int k) {
    return ledger_line(memory_terms(llama, MemorySetup{BackendKind::cuda, dtype_memory_types(ElementType::bf16), k, false}));
  };
  const DeviceMemoryLine tp1 = line_at(1);
  EXPECT_EQ(tp1.weight_bytes, 2 * parameter_count(llama) + 64 * 4);  // bf16 values, and the f32 RoPE table
  EXPECT_EQ(readable_bytes(tp1.weight_bytes), "131.42 GiB");
  EXPECT_FALSE(device_capacity(tp1, budget.bytes, 0).fits);
  const DeviceMemoryLine tp2 = line_at(2);
  const DeviceCapacity capacity2 = device_capacity(tp2, budget.bytes, 0);
  EXPECT_TRUE(capacity2.fits);
  EXPECT_EQ(tp2.kv_bytes_per_token, 163'840);  // 80 layers × 2 × 4 KV heads × 128 × 2 B
  EXPECT_EQ(capacity2.kv_tokens_per_device,
            (budget.bytes - tp2.weight_bytes - tp2.fixed_bytes) / tp2.kv_bytes_per_token);
}

TEST(MemoryLedger, KvBytesPerDeviceAgreeBetweenEstimatorAndLedger) {
  const ModelConfig llama = config("llama-3.1-70b.json");
  const std::int64_t logical = kv_bytes_per_token(kv_cache_shape(llama, ElementType::bf16));
  for (int k : {1, 2, 4, 8, 16}) {
    const DeviceMemoryLine line =
        ledger_line(memory_terms(llama, MemorySetup{BackendKind::cuda, dtype_memory_types(ElementType::bf16), k, false}));
    EXPECT_EQ(line.kv_bytes_per_token, kv_device_share(logical, llama.num_kv_heads, k).kv_bytes_per_token) << "k=" << k;
  }
}

// The ledger never recommends what the check refuses: at blocks of one token
// the admissible batch fits, and one more sequence does not.
class AdmittedBatchPassesTheCheck : public ::testing::TestWithParam<int> {};

TEST_P(AdmittedBatchPassesTheCheck, AndOneMoreDoesNot) {
  const int context = GetParam();
  const ModelConfig model = config("llama-3.2-1b.json");
  const MemorySetup setup{BackendKind::cpu, backend_memory_types(BackendKind::cpu), 2, false};
  const MemoryBudget budget{6LL << 30, "test budget"};  // above TP-2's 3.4 GiB of f32 weights
  const DeviceMemoryLine line = ledger_line(memory_terms(model, setup));
  const std::int64_t admitted = admissible_sequences(line, device_capacity(line, budget.bytes, 0), context + 1, 1);
  ASSERT_GT(admitted, 0);
  EXPECT_FALSE(check_fits(estimate_rank_memory(model, setup, static_cast<int>(admitted), context), budget));
  const auto refused = check_fits(estimate_rank_memory(model, setup, static_cast<int>(admitted + 1), context), budget);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find(fmt::format("TP-2 b={}", admitted + 1)), std::string::npos) << *refused;
  EXPECT_NE(refused->find("test budget"), std::string::npos) << *refused;
}

INSTANTIATE_TEST_SUITE_P(Contexts, AdmittedBatchPassesTheCheck, ::testing::Values(0, 127, 4095),
                         [](const ::testing::TestParamInfo<int>& test_case) { return fmt::format("c{}", test_case.param); });

}  // namespace
}  // namespace tpb
