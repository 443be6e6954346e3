#include "tp_decoder/memory_estimate.hpp"

#include <fmt/format.h>

#include "collectives/communicator_factory.hpp"
#include "collectives/oneshot_footprint.hpp"
#include "common/error.hpp"
#include "tp_decoder/counting_backend.hpp"     // step_footprint
#include "tp_decoder/cuda/attention_plan.hpp"  // kMinAttentionChunk
#include "tp_decoder/cuda/cuda_backend.hpp"    // kCublasWorkspaceBytes
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

std::int64_t bytes_of(ElementType type) { return static_cast<std::int64_t>(element_size(type)); }

// One sequence's logits over the whole vocabulary, copied to the host as f32.
std::int64_t host_logits_bytes(const ShardPlan& plan) { return std::int64_t{plan.vocab} * plan.tp * 4; }

// NCCL's buffers per communicator: NCCL_BUFFSIZE (4 MiB, the Simple
// protocol) plus LL128 (~4.6 MiB) and LL (256 KiB) buffers, for the previous
// and next peer of each channel; 16 channels is what NCCL opens on an
// NVLink node. Not measured here (no GPU): a stated assumption.
constexpr std::int64_t kNcclBytesPerChannelPeer = (4LL << 20) + (4608LL << 10) + (256LL << 10);
constexpr std::int64_t kNcclChannels = 16;

// What the collective of `setup` holds beside the step's tensors.
MemoryTerm comm_buffer_term(const ShardPlan& plan, const MemorySetup& setup) {
  MemoryTerm term;
  const std::vector<int> groups = setup.groups_held.empty() ? std::vector<int>{setup.tp} : setup.groups_held;
  switch (setup.collective) {
    case CollectiveKind::mpi:
      // Open MPI's all-reduce of the in-place partial sum (b × hidden) works
      // through a temporary of the message's size (recursive doubling or
      // ring); a group of one copies nothing.
      if (setup.tp > 1) term.per_sequence = std::int64_t{plan.hidden} * bytes_of(setup.types.activation);
      break;
    case CollectiveKind::nccl:
      // Each communicator of more than one rank keeps its own channels'
      // buffers (a group of one connects to no peer).
      for (int k : groups)
        if (k > 1) term.fixed += 2 * kNcclChannels * kNcclBytesPerChannelPeer;
      break;
    case CollectiveKind::oneshot: {
      // Every group maps its shared buffers at its first call, a group of one
      // (k = 1) too, and keeps them while it lives.
      const MemoryKind memory = collective_memory(CollectiveKind::oneshot, setup.backend);
      for (int k : groups) term.fixed += static_cast<std::int64_t>(oneshot_bytes_per_rank(memory, k));
      break;
    }
  }
  return term;
}

void add(MemoryTerm& into, const MemoryTerm& term) {
  into.fixed += term.fixed;
  into.per_sequence += term.per_sequence;
  into.per_sequence_token += term.per_sequence_token;
}

// Everything one plan holds: used once for the rank's own shard and, under
// --check, once more for the TP-1 step its group's first rank builds beside it.
MemoryTerms plan_terms(const ModelConfig& config, const ShardPlan& plan, const MemorySetup& setup) {
  const MemoryTypes& types = setup.types;
  MemoryTerms t;
  const StepFootprint footprint = step_footprint(config, plan, types);
  t.weights.fixed = footprint.weights;
  t.kv_cache.per_sequence_token = footprint.kv_per_sequence_token;
  t.activations.per_sequence = footprint.state_per_sequence;
  if (setup.backend == BackendKind::cpu) {
    // Attention scores, (b × q_heads, c + 1) f32, and the RoPE cos|sin row.
    t.workspaces.per_sequence_token = std::int64_t{plan.q_heads} * 4;
    t.workspaces.fixed = std::int64_t{plan.head_dim} * 4;
    // After the timed steps the gathered logits are copied to the host as f32
    // and checked for NaN/Inf while the step's state is still held.
    t.workspaces.per_sequence = host_logits_bytes(plan);
  } else {
    // The CUDA backend's fixed cuBLAS workspace, and flash-decoding's partials:
    // the c + 1 positions split into chunks of at least gpu::kMinAttentionChunk
    // (64), so at most ceil(t / 64) <= t / 64 + 1 partials of head_dim + 2
    // floats per query head.
    const std::int64_t partial = std::int64_t{plan.q_heads} * (plan.head_dim + 2) * 4;
    t.workspaces.fixed = static_cast<std::int64_t>(kCublasWorkspaceBytes);
    t.workspaces.per_sequence = partial;
    t.workspaces.per_sequence_token = (partial + gpu::kMinAttentionChunk - 1) / gpu::kMinAttentionChunk;
  }
  return t;
}

}  // namespace

MemoryTypes backend_memory_types(BackendKind backend) {
  return backend == BackendKind::cpu ? MemoryTypes{} : dtype_memory_types(ElementType::bf16);
}

MemoryTypes dtype_memory_types(ElementType dtype) { return MemoryTypes{dtype, dtype, dtype, ElementType::f32}; }

MemoryTerms memory_terms(const ModelConfig& config, const MemorySetup& setup) {
  const ShardPlan plan = make_shard_plan(config, setup.tp, 0);
  MemoryTerms terms = plan_terms(config, plan, setup);

  if (setup.collectives) terms.comm_buffers = comm_buffer_term(plan, setup);
  if (setup.check && setup.tp > 1) {
    // check_step: TP-1 weights and state live beside the TP-k ones. The CPU
    // attention scratch is one buffer grown to the larger (TP-1) shape, and
    // three host copies of the logits meet (TP-k's in vocabulary order, and
    // TP-1's raw and reordered).
    const ShardPlan plan1 = make_shard_plan(config, 1, 0);
    const MemoryTerms tp1 = plan_terms(config, plan1, setup);
    add(terms.weights, tp1.weights);
    add(terms.kv_cache, tp1.kv_cache);
    add(terms.activations, tp1.activations);
    if (setup.backend == BackendKind::cpu) {
      terms.workspaces = tp1.workspaces;
      terms.workspaces.per_sequence = 3 * host_logits_bytes(plan1);
    } else
      add(terms.workspaces, MemoryTerm{0, tp1.workspaces.per_sequence, tp1.workspaces.per_sequence_token});
  }
  return terms;
}

MemoryEstimate estimate_rank_memory(const ModelConfig& config, const MemorySetup& setup, int batch, int context) {
  TPB_CHECK(batch >= 1 && context >= 0, fmt::format("memory estimate: batch {} and context {}", batch, context));
  const MemoryTerms terms = memory_terms(config, setup);
  const std::int64_t tokens = std::int64_t{context} + 1;  // the history plus the decoded token
  MemoryEstimate e;
  e.tp = setup.tp;
  e.batch = batch;
  e.context = context;
  e.weights = terms.weights.at(batch, tokens);
  e.kv_cache = terms.kv_cache.at(batch, tokens);
  e.activations = terms.activations.at(batch, tokens);
  e.workspaces = terms.workspaces.at(batch, tokens);
  e.comm_buffers = terms.comm_buffers.at(batch, tokens);
  return e;
}

MemoryEstimate largest_grid_estimate(const ModelConfig& config, MemorySetup setup, const std::vector<int>& tp,
                                     const std::vector<int>& batch, const std::vector<int>& context) {
  TPB_CHECK(!tp.empty() && !batch.empty() && !context.empty(), "memory estimate: an empty grid");
  MemoryEstimate largest;
  bool first = true;
  for (int k : tp) {
    setup.tp = k;
    for (int b : batch)
      for (int c : context) {
        const MemoryEstimate e = estimate_rank_memory(config, setup, b, c);
        if (first || e.total() > largest.total()) largest = e;
        first = false;
      }
  }
  return largest;
}

}  // namespace tpb
