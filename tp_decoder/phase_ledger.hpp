#pragma once
// What one rank of a TP-k decode step moves and computes, phase by phase: the
// ledger a per-phase cost fit reads its explanatory variables from. Exact
// functions of the config, the point (k, b, c) and the storage types, not
// written out but counted: rank 0's weights and decode state are built on the
// counting backend (counting_backend.hpp) and decode_step runs on it once
// (every rank's shard has the same shape). A mixture-of-experts step depends
// on its routing too: it reads the experts it routes to, given per layer.
//
// Conventions, which each of the counting backend's operations counts by, so
// that two phases' figures mean the same thing:
// - Bytes are the operands' bytes touched once: every input element read once,
//   every output element written once, whatever a backend's caches re-read
//   (attention's query heads of one GQA group read their KV head once here).
// - Flops count every floating-point add, multiply, divide, comparison and
//   transcendental (exp, sqrt, cos, sin) as one, as the operation's definition
//   in backend.hpp computes it; a multiply-add is two.
// - A phase is summed over every interval the step's timeline books to it
//   (`intervals`): 2 per layer + 1 for norm, 2 per layer for rope_kv (the
//   rotation and the KV write) and for all_reduce and residual, 1 per layer
//   for the other layer phases, 1 for embedding, lm_head, all_gather, argmax.
//   A sparse layer (moe_layer.hpp) books 1 router interval, and per expert it
//   runs (each routed expert touched, then the shared one) 1 gate_up,
//   silu_mul, down and expert_combine interval; the shared expert adds 1
//   shared_gate interval. Every routed expert runs on the whole batch.
#include <array>
#include <cstdint>
#include <vector>

#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

struct PhaseCost {
  std::int64_t intervals = 0;           // timeline intervals booked to the phase per step
  std::int64_t bytes_read = 0;          // everything read, weights included
  std::int64_t bytes_written = 0;
  std::int64_t flops = 0;
  std::int64_t weight_bytes_read = 0;   // the part of bytes_read that is weights (TensorRole::weight)
  PhaseCost& operator+=(const PhaseCost& other) {
    intervals += other.intervals;
    bytes_read += other.bytes_read;
    bytes_written += other.bytes_written;
    flops += other.flops;
    weight_bytes_read += other.weight_bytes_read;
    return *this;
  }
};

// The step's collectives as the model forms name them (ARCHITECTURE.md).
struct CollectiveCounts {
  std::int64_t ar_bytes = 0;  // one all-reduce payload: b × hidden × activation bytes
  std::int64_t n_ar = 0;      // 2 per layer; 0 without collectives
  std::int64_t ag_bytes = 0;  // the gathered logits: b × vocabulary × logit bytes (this rank sends ag_bytes / k)
  std::int64_t n_ag = 0;      // 1; 0 without collectives
};

struct PhaseLedger {
  std::array<PhaseCost, kPhaseCount> phases{};
  CollectiveCounts collectives;
  // Weights read per step: the sum of the phases' weight_bytes_read (every
  // layer matrix, norm gain and bias of the shard, the touched experts'
  // shards, the LM-head shard and b embedding rows). What
  // StepTerms::weight_bytes_per_step reports.
  std::int64_t weight_bytes_per_step() const { return total().weight_bytes_read; }

  const PhaseCost& operator[](Phase phase) const { return phases[static_cast<std::size_t>(phase)]; }
  PhaseCost total() const;  // every phase summed
};

// One rank of TP-`tp` decoding `batch` sequences of `context` tokens of
// history (the step attends over context + 1). `collectives` false, or
// tp = 1 (a group of one issues none): the step ran without a group (--no-comm,
// replay, TP-1), so its all_reduce intervals are empty, it has no all_gather
// and argmax scores this rank's vocabulary shard only. UsageError when `tp` does not fit the model (shard_plan_problem).
// `experts_touched`: for a mixture-of-experts model, the distinct experts
// each layer routes to (StepTerms::experts_touched, one count per layer);
// UsageError for a count `batch` sequences cannot touch (below top-k, above
// batch × top-k or the experts). Ignored for a dense model.
PhaseLedger phase_ledger(const ModelConfig& config, int tp, int batch, int context, const MemoryTypes& types,
                         bool collectives = true, const std::vector<int>& experts_touched = {});

}  // namespace tpb
