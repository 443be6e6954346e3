// The memory estimator against hand arithmetic, the ledger it feeds, and the
// promise between them: the batch the KV ledger admits is the largest one the
// pre-allocation check accepts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "collectives/oneshot_cuda_kernels.hpp"
#include "collectives/oneshot_footprint.hpp"
#include "collectives/shared_exchange.hpp"
#include "common/error.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "predictor/kv_answer.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {
namespace {

ModelConfig config(const std::string& name) { return load_model_config(std::string(TPB_CONFIG_DIR) + "/" + name); }

// TP-k on `backend` with `collective`, at the backend's storage types.
MemorySetup setup_for(BackendKind backend, CollectiveKind collective, int k) {
  MemorySetup setup;
  setup.backend = backend;
  setup.collective = collective;
  setup.types = backend_memory_types(backend);
  setup.tp = k;
  return setup;
}
MemorySetup cpu_mpi(int k) { return setup_for(BackendKind::cpu, CollectiveKind::mpi, k); }

TEST(MemoryEstimate, TinyLlamaCpuByHand) {
  // tiny-llama: hidden 64, intermediate 128, 2 layers, 4 heads, 2 KV heads of 16, vocabulary 256, untied, f32.
  const ModelConfig tiny = config("tiny-llama.json");
  const MemoryEstimate e = estimate_rank_memory(tiny, cpu_mpi(1), 2, 127);
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

TEST(MemoryEstimate, TinyLlamaCudaWorkspacesByHand) {
  // The cuBLAS workspace of 32 MiB, and per sequence flash-decoding's partials: 4 query heads × (16 + 2) f32 =
  // 288 B, once and once per 64 positions (ceil(288 / 64) = 5 B a token), 2 sequences of 128 tokens.
  const MemorySetup cuda = setup_for(BackendKind::cuda, CollectiveKind::nccl, 1);
  EXPECT_EQ(estimate_rank_memory(config("tiny-llama.json"), cuda, 2, 127).workspaces,
            (32LL << 20) + 2 * 288 + 2 * 128 * 5);
}

TEST(MemoryEstimate, TpTwoHalvesTheShardAndAddsTheReductionBuffer) {
  const ModelConfig tiny = config("tiny-llama.json");
  const MemorySetup setup = cpu_mpi(2);
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
      largest_grid_estimate(tiny, cpu_mpi(1), {1, 2}, {1, 8}, {16, 64});
  EXPECT_EQ(largest.tp, 1);
  EXPECT_EQ(largest.batch, 8);
  EXPECT_EQ(largest.context, 64);
}

TEST(MemoryEstimate, RefusesADegreeTheModelCannotShard) {
  EXPECT_THROW(memory_terms(config("tiny-llama.json"), cpu_mpi(3)), UsageError);
}

// The one-shot communicators' buffers, from the constants they allocate with:
// the estimate must change when their allocations do.
std::int64_t cuda_oneshot_bytes(int k) {
  return static_cast<std::int64_t>(kOneshotCudaHeaderBytes + 2 * kDefaultOneshotCapacityBytes +
                                   static_cast<std::size_t>(k) * sizeof(char*));
}

TEST(MemoryEstimate, OneshotOnCudaAddsItsIpcBufferAndPeerTable) {
  const ModelConfig llama = config("llama-3.1-8b.json");
  for (int k : {1, 2, 4, 8}) {
    const MemorySetup oneshot = setup_for(BackendKind::cuda, CollectiveKind::oneshot, k);
    const MemorySetup nccl = setup_for(BackendKind::cuda, CollectiveKind::nccl, k);
    for (int batch : {1, 32}) {
      const MemoryEstimate e = estimate_rank_memory(llama, oneshot, batch, 1023);
      const MemoryEstimate n = estimate_rank_memory(llama, nccl, batch, 1023);
      // Its own buffer (control block, two 8 MiB slots) and the device table of k buffer pointers, at any batch,
      // at k = 1 too (a group of one maps its buffer at the first call); the peers' buffers are theirs.
      EXPECT_EQ(e.comm_buffers, cuda_oneshot_bytes(k)) << "k=" << k << " b=" << batch;
      // By hand: 512 B of control block, 2 × 8 MiB of slots, 8 B a peer pointer.
      EXPECT_EQ(e.comm_buffers, 512 + (16LL << 20) + 8LL * k) << "k=" << k << " b=" << batch;
      // In place of NCCL's buffers, every other term unchanged.
      EXPECT_EQ(e.total() - e.comm_buffers, n.total() - n.comm_buffers) << "k=" << k << " b=" << batch;
    }
  }
}

TEST(MemoryEstimate, OneshotOnCpuAddsItsSegmentOfTheSharedWindow) {
  const ModelConfig tiny = config("tiny-llama.json");
  // This rank's segment: a 64-byte flag line, two 8 MiB slots, up to 63 B to align the flag.
  const auto segment =
      static_cast<std::int64_t>(SharedExchange::segment_allocation_bytes(kDefaultOneshotCapacityBytes));
  EXPECT_EQ(segment, 64 + (16LL << 20) + 63);
  for (int k : {1, 2}) {
    const MemorySetup oneshot = setup_for(BackendKind::cpu, CollectiveKind::oneshot, k);
    for (int batch : {1, 8}) {
      const MemoryEstimate e = estimate_rank_memory(tiny, oneshot, batch, 31);
      EXPECT_EQ(e.comm_buffers, segment) << "k=" << k << " b=" << batch;  // fixed: no MPI temporary per sequence
      const MemoryEstimate m = estimate_rank_memory(tiny, cpu_mpi(k), batch, 31);
      EXPECT_EQ(e.total() - e.comm_buffers, m.total() - m.comm_buffers) << "k=" << k << " b=" << batch;
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(oneshot_host_bytes_per_rank()), segment);
}

TEST(MemoryEstimate, OneshotCountsEveryGroupHeldAtOnce) {
  // The study's rounds keep a group of 1, 2 and 4 alive at once, each with its own buffers.
  const ModelConfig llama = config("llama-3.1-8b.json");
  MemorySetup cuda = setup_for(BackendKind::cuda, CollectiveKind::oneshot, 2);
  cuda.groups_held = {1, 2, 4};
  EXPECT_EQ(estimate_rank_memory(llama, cuda, 1, 0).comm_buffers,
            cuda_oneshot_bytes(1) + cuda_oneshot_bytes(2) + cuda_oneshot_bytes(4));
  MemorySetup cpu = setup_for(BackendKind::cpu, CollectiveKind::oneshot, 2);
  cpu.groups_held = {1, 2, 4};
  EXPECT_EQ(estimate_rank_memory(llama, cpu, 1, 0).comm_buffers,
            3 * static_cast<std::int64_t>(oneshot_host_bytes_per_rank()));
}

TEST(MemoryEstimate, NcclCountsEveryGroupOfMoreThanOneRankHeldAtOnce) {
  // Each NCCL communicator keeps its own channel buffers; a group of one has no peer to connect to.
  const ModelConfig llama = config("llama-3.1-8b.json");
  const MemorySetup one_group_of_two = setup_for(BackendKind::cuda, CollectiveKind::nccl, 2);
  const std::int64_t one_group = estimate_rank_memory(llama, one_group_of_two, 1, 0).comm_buffers;
  EXPECT_GT(one_group, 0);
  EXPECT_EQ(estimate_rank_memory(llama, setup_for(BackendKind::cuda, CollectiveKind::nccl, 1), 1, 0).comm_buffers, 0);
  MemorySetup held = one_group_of_two;
  held.groups_held = {1, 2, 4};
  EXPECT_EQ(estimate_rank_memory(llama, held, 1, 0).comm_buffers, 2 * one_group);
}

TEST(MemoryEstimate, NoCollectivesNoOneshotBuffers) {
  // replay and --no-comm: the group never makes a collective call, so it never maps its buffers.
  for (const BackendKind backend : {BackendKind::cpu, BackendKind::cuda}) {
    MemorySetup setup = setup_for(backend, CollectiveKind::oneshot, 2);
    setup.collectives = false;
    EXPECT_EQ(estimate_rank_memory(config("tiny-llama.json"), setup, 4, 31).comm_buffers, 0);
  }
}

// Llama-3.1-70B in bf16: TP-1 holds all 70.55 B parameters, 131.4 GiB.
TEST(MemoryLedger, Llama70BWeightsDoNotFit120GAtTp1ButDoAtTp2) {
  const ModelConfig llama = config("llama-3.1-70b.json");
  const MemoryBudget budget = mem_per_device_budget("120G");
  const auto line_at = [&](int k) {
    return ledger_line(memory_terms(llama, setup_for(BackendKind::cuda, CollectiveKind::nccl, k)));
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
        ledger_line(memory_terms(llama, setup_for(BackendKind::cuda, CollectiveKind::nccl, k)));
    EXPECT_EQ(line.kv_bytes_per_token, kv_device_share(logical, llama.num_kv_heads, k).kv_bytes_per_token) << "k=" << k;
  }
}

// The ledger never recommends what the check refuses: at blocks of one token
// the admissible batch fits, and one more sequence does not.
class AdmittedBatchPassesTheCheck : public ::testing::TestWithParam<int> {};

TEST_P(AdmittedBatchPassesTheCheck, AndOneMoreDoesNot) {
  const int context = GetParam();
  const ModelConfig model = config("llama-3.2-1b.json");
  const MemorySetup setup = cpu_mpi(2);
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
