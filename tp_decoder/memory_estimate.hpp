#pragma once
// How many bytes one rank of a TP-k decode step holds at its peak, from the
// model config and the shard plan alone, before anything is allocated: the
// weights, KV cache and activations as the step's own code builds them on the
// counting backend (step_footprint, counting_backend.hpp), the rest from the
// owners of what no step allocation shows. The
// one estimator behind both the pre-allocation check of step/replay/run and
// the KV capacity answer of `mpi_bench kv` (mpi_bench/memory_ledger.hpp turns
// these terms into the ledger's), so the tool never recommends a batch that
// its own check would refuse.
//
// Every term is a line in the batch b and the tokens per sequence t = c + 1
// (the history plus the decoded token, what the step's cache holds):
//   bytes = fixed + b × per_sequence + b × t × per_sequence_token
// which is what lets the ledger turn a budget into sequences exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// Storage type per tensor role, as the backend chooses them (or, for the
// ledger, a deployment dtype).
struct MemoryTypes {
  ElementType weight = ElementType::f32;
  ElementType kv_cache = ElementType::f32;
  ElementType activation = ElementType::f32;
  ElementType logits = ElementType::f32;
};

// The types the `cpu` or `cuda` backend stores (tp_decoder/cpu, tp_decoder/cuda).
MemoryTypes backend_memory_types(BackendKind backend);
// Weights, KV cache and activations at `dtype`; logits in f32 as on every backend.
MemoryTypes dtype_memory_types(ElementType dtype);

// What runs on the rank.
struct MemorySetup {
  BackendKind backend = BackendKind::cpu;           // whose workspaces, and the memory a oneshot collective uses
  CollectiveKind collective = CollectiveKind::mpi;  // whose communication buffers: mpi, nccl or oneshot
  MemoryTypes types;
  int tp = 1;                   // k
  bool check = false;           // --check: the group's first rank also builds TP-1's weights and state (k > 1)
  bool collectives = true;      // false for replay and --no-comm: no communication buffers
  // The TP degrees of every group a rank holds at once, tp's own among them
  // (the study's rounds keep a group of 1 and of each k of the grid); empty:
  // tp's group alone. Counted for oneshot and nccl, whose every group keeps
  // its own buffers while it lives.
  std::vector<int> groups_held = {};
};

struct MemoryTerm {
  std::int64_t fixed = 0;
  std::int64_t per_sequence = 0;
  std::int64_t per_sequence_token = 0;
  std::int64_t at(std::int64_t batch, std::int64_t tokens) const {
    return fixed + batch * per_sequence + batch * tokens * per_sequence_token;
  }
};

struct MemoryTerms {
  MemoryTerm weights;       // the weight shard (plus TP-1's under --check)
  MemoryTerm kv_cache;      // K and V history of every layer
  MemoryTerm activations;   // residual stream, QKV, MLP, logits, tokens
  MemoryTerm workspaces;    // attention scratch, BLAS packing buffers, cuBLAS workspace
  MemoryTerm comm_buffers;  // what the collective allocates beside the step's own tensors
};

// UsageError when k does not fit the model (shard_plan_problem).
MemoryTerms memory_terms(const ModelConfig& config, const MemorySetup& setup);

// One rank's bytes at one (b, c) point, term by term.
struct MemoryEstimate {
  int tp = 1;
  int batch = 1;
  int context = 0;
  std::int64_t weights = 0;
  std::int64_t kv_cache = 0;
  std::int64_t activations = 0;
  std::int64_t workspaces = 0;
  std::int64_t comm_buffers = 0;
  std::int64_t total() const { return weights + kv_cache + activations + workspaces + comm_buffers; }
};

MemoryEstimate estimate_rank_memory(const ModelConfig& config, const MemorySetup& setup, int batch, int context);

// The largest estimate over a step grid: every k of `tp` (setup.tp ignored),
// batch and context. A rank holds one shard and one point at a time, so the
// grid's peak is its largest point.
MemoryEstimate largest_grid_estimate(const ModelConfig& config, MemorySetup setup, const std::vector<int>& tp,
                                     const std::vector<int>& batch, const std::vector<int>& context);

}  // namespace tpb
