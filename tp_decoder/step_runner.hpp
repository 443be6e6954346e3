#pragma once
// Runs one (k, b, c) point of the decode step on one rank of a TP-k group and
// returns what that rank measured, per timed iteration. Used in-process by the
// step, replay and study commands; gathering across ranks and writing HDF5 is
// the caller's (mpi_bench/step_output.hpp).
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {

struct StepOptions {
  int warmup = 3;       // untimed steps first (page faults, BLAS/cuBLAS/NCCL first-call setup)
  int iters = 20;       // timed steps
  bool no_comm = false; // skip the collectives: the compute term alone (numerics wrong for k > 1)
  bool graph = false;   // capture the step once and replay it (backends with graphs only)
  bool profile = false; // per-op events where they perturb the step (CUDA eager)
  bool timers = true;   // per-op timers on host-synchronous backends; off only to measure their cost
  bool check = false;   // before timing: TP-k against TP-1, and NaN/Inf per layer
  std::uint64_t seed = kDefaultSeed;
  // Whose ranks start every step together (an untimed barrier); null: the
  // step's own group. A study sets its world, so that ranks computing apart
  // (TP-1 on every rank, shard replays) contend for the node as the ranks of
  // a TP-k step do, instead of drifting out of phase over a visit.
  Communicator* lockstep = nullptr;
};

struct StepPoint {
  int tp = 1;       // k
  int batch = 1;    // b: sequences decoded together
  int context = 0;  // c: tokens of KV history per sequence; the step attends over c + 1
};

// Logit tolerance of TP-k against TP-1, relative to the largest |TP-1 logit|,
// with its reason. f32: sums run in a different order (k partial sums, then
// the all-reduce; BLAS blocks differently for k-times narrower shards), a few
// ulps per reduction compounding over the layers. bf16: every activation is
// rounded to 8 mantissa bits at each operation.
double relative_logit_tolerance(ElementType activation_type);
std::string logit_tolerance_reason(ElementType activation_type);

struct StepCheck {
  bool compared = false;           // this rank compared TP-k with a TP-1 step (first rank of a group, k > 1)
  double max_abs_logit_diff = 0;   // max |TP-k - TP-1| over all logits of all sequences
  double max_abs_logit = 0;        // max |TP-1 logit|
  double tolerance = 0;            // absolute: relative tolerance * max(1, max_abs_logit)
  std::vector<std::int32_t> tokens;            // TP-k greedy tokens
  std::vector<std::int32_t> reference_tokens;  // TP-1 greedy tokens
  // Mixture-of-experts models: every rank of the group routed alike (checked
  // on every rank, k > 1), and the first rank's expert sets equal TP-1's.
  // Routing is discontinuous, so the logits are comparable only where every
  // sequence's top-k margin (TP-1's smallest) exceeds the logit tolerance.
  bool routing_compared = false;
  double min_routing_margin = 0;   // TP-1's smallest top-k router-logit margin over layers and sequences
  std::string failure;             // empty when the check passed
};

// One rank's terms; every vector has one entry per timed iteration.
struct StepTerms {
  std::vector<double> t_rank_us;       // this rank: start barrier to step done (t_step = max over the group)
  std::vector<double> t_host_us;       // start to the return of the issue loop (before the final synchronize)
  std::vector<double> t_ar_insitu_us;  // inside the all-reduce calls; empty when not measured
  std::vector<double> t_ag_insitu_us;  // inside the logits all-gather; empty when not measured
  std::array<std::vector<double>, kPhaseCount> phase_us;  // per phase, summed over layers; empty when not measured
  // Mixture-of-experts models: the distinct experts each layer's routing
  // touched, ascending (empty for a dense model). Every iteration of a point
  // repeats the same tokens at the same position, so the routing, and this,
  // is fixed per point.
  std::vector<std::vector<int>> experts_touched;

  // What ran.
  std::int64_t ar_bytes = 0;               // one all-reduce payload: b * hidden * activation bytes
  std::int64_t n_ar = 0;                   // all-reduces per step: 2 per layer (0 with no_comm or k = 1)
  std::int64_t weight_bytes_per_step = 0;  // weights this rank reads per step (the touched experts only)
  ElementType weight_type = ElementType::f32;
  ElementType activation_type = ElementType::f32;
  std::string device;
  StepCheck check;
  bool collectives_profiled_separately = false;  // t_ar/t_ag_insitu_us come from extra profiled iterations
};

// What a cache's contents were built from: one shard of one model, drawn
// from one seed on one backend.
struct ShardKey {
  const Backend* backend = nullptr;
  const ModelConfig* config = nullptr;
  int tp = 0;
  int rank = -1;
  std::uint64_t seed = 0;
  bool operator==(const ShardKey&) const = default;
};

// One shard's weights, built on first use and kept for the next points of the
// same shard. Drawing every weight through the hash costs far more than a timed
// step when the vocabulary is large (Llama-3.2-1B's embedding alone is 262 M
// values), and a study runs many (b, c) points per shard. Holds one shard at a
// time; must be destroyed before the backend that built it.
class WeightCache {
 public:
  const DecoderWeights& get(Backend& backend, const ModelConfig& config, const ShardPlan& plan, std::uint64_t seed);

 private:
  ShardKey shard_;
  std::optional<DecoderWeights> weights_;
};

// The decode states of one shard's (b, c) points, each with its per-operation
// timelines, kept from one run of a point to the next. A study revisits every
// point once per round: kept, a visit redraws no KV history and its first
// timed step pays no first-call setup (fresh activations touched, timeline
// events created), so one timed step can be the whole visit. Every step of a
// point does identical work (same input tokens, same cache position written),
// so a kept state changes nothing a step computes. Holds every point it is
// given: its owner budgets their memory. Must be destroyed before the
// backend that built it.
class DecodeStateCache {
 public:
  struct Entry {
    DecodeState state;
    // [collectives on]: a step with collectives marks the all-gather too, and
    // a timeline creates its events in the first step it marks.
    std::array<std::unique_ptr<StepTimeline>, 2> timelines;
  };
  // The entry of (batch, context) on `plan`'s shard; *built says whether it was made now.
  Entry& get(Backend& backend, const ModelConfig& config, const ShardPlan& plan, int batch, int context,
             std::uint64_t seed, bool* built);

 private:
  ShardKey shard_;
  std::map<std::pair<int, int>, Entry> entries_;
};

// Runs `point` on this rank. `group` is this rank's TP-k communicator
// (size == point.tp; barriers always go through it, collectives unless
// no_comm); null means replay: this one rank runs the shard shapes of rank 0
// of TP-k with no collectives at all. The group's memory kind must match the
// backend's. Collective over `group`.
// With `cache`, the shard's weights come from it (built once per shard);
// without, they are built for this point and released after it. With
// `states`, the point's decode state and timeline come from it and stay
// there; without, they are built for this point. Without warm-up, a state or
// timeline built now first runs one untimed step.
StepTerms run_step_point(Backend& backend, Communicator* group, const ModelConfig& config, const StepPoint& point,
                         const StepOptions& options, WeightCache* cache = nullptr,
                         DecodeStateCache* states = nullptr);

// Makes sure `terms` carries the in-situ collective times of `point` on any
// backend: kept when the timed iterations recorded them (host-synchronous
// timers), otherwise measured in `options.iters` further iterations timed per
// operation, so that the events never perturb the timed ones. Nothing to do
// without collectives (no_comm, replay). Collective over `group`; every rank
// decides alike (same backend, same options).
void measure_collectives_in_situ(Backend& backend, Communicator* group, const ModelConfig& config,
                                 const StepPoint& point, const StepOptions& options, WeightCache* cache,
                                 DecodeStateCache* states, StepTerms* terms);

}  // namespace tpb
