#include "tp_decoder/step_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "common/error.hpp"
#include "tp_decoder/moe_routing.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {

double relative_logit_tolerance(ElementType activation_type) {
  return activation_type == ElementType::f32 ? 1e-4 : 5e-2;
}

std::string logit_tolerance_reason(ElementType activation_type) {
  if (activation_type == ElementType::f32)
    return "fp32: TP-k sums in a different order than TP-1 (k partial sums joined by the all-reduce, narrower GEMMs "
           "blocked differently); a few ulps per reduction compounding over the layers stays far below 1e-4 of the "
           "largest logit, while a sharding error moves logits by O(1)";
  return "bf16: activations are rounded to 8 mantissa bits (2^-8 = 3.9e-3 relative) after every operation, and the "
         "TP-k rounding points differ from TP-1's";
}

namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

// Holds the point's captured graph for exactly as long as the point runs: the
// caller destroys the group's communicator after the point, and NCCL's destroy
// waits for every graph that captured it (Backend::graph_release).
class CapturedStepGraph {
 public:
  explicit CapturedStepGraph(Backend& backend) : backend_(backend) {}
  ~CapturedStepGraph() { backend_.graph_release(); }
  CapturedStepGraph(const CapturedStepGraph&) = delete;
  CapturedStepGraph& operator=(const CapturedStepGraph&) = delete;

 private:
  Backend& backend_;
};

// Waits for one issued step, inside the timed interval (as nccl-tests' timed
// loop ends in its stream wait). The communicator waits first where it polls
// its own errors while waiting (NCCL: a failed peer ends the wait with NCCL's
// reason instead of hanging); the poll spins without sleeping, so it adds no
// more than a spinning stream synchronize would. The backend's wait then finds
// the stream idle and returns at once; it is the whole wait for a replay rank.
// docs/MEASUREMENT.md ("The step being timed") states the cost.
void wait_for_step(Backend& backend, Communicator* comm) {
  if (comm) comm->synchronize(backend.stream());
  backend.synchronize();
}

std::string where(const Communicator* group) {
  return group ? fmt::format("rank {} of a TP-{} group", group->rank(), group->size()) : "the replay rank";
}

void require_finite(const std::vector<float>& values, const std::string& what, const Communicator* group) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw_error("tpbench", 1, fmt::format("non-finite value {} in {} (element {}) on {}", values[i], what, i, where(group)),
                  __FILE__, __LINE__);
}

// One step's logits as (batch, vocab) in vocabulary order, from the all-gathered (k*b, vocab/k) layout.
std::vector<float> logits_in_vocab_order(Backend& backend, const Tensor& gathered, int shards, int batch) {
  const std::vector<float> raw = download_all(backend, gathered);
  const std::size_t shard_vocab = static_cast<std::size_t>(gathered.cols);
  std::vector<float> ordered(raw.size());
  for (int s = 0; s < shards; ++s)
    for (int b = 0; b < batch; ++b)
      std::copy_n(raw.begin() + static_cast<std::ptrdiff_t>((static_cast<std::size_t>(s) * batch + b) * shard_vocab),
                  shard_vocab,
                  ordered.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * shard_vocab * shards +
                                                                 s * shard_vocab));
  return ordered;
}

// Throws at the first layer whose output (the residual stream, identical on
// every rank of a group after its all-reduce) holds a NaN or Inf.
LayerObserver finite_hidden_state(Backend& backend, const Communicator* comm) {
  return [&backend, comm](int layer, const Tensor& x) {
    require_finite(download_all(backend, x), fmt::format("the hidden state after layer {}", layer), comm);
  };
}

// After the timed loop: a NaN or Inf in the last step's logits means the
// timed steps computed garbage, which must not be stored as a valid timing.
// One more step, inspected layer by layer, names the layer where it began.
void require_finite_logits(Backend& backend, Communicator* comm, const ModelConfig& config,
                           const DecoderWeights& weights, DecodeState& state) {
  const Tensor& logits = comm ? *state.logits_all : *state.logits;
  const std::vector<float> values = download_all(backend, logits);
  if (std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) return;
  decode_step(backend, comm, config, weights, state, nullptr, finite_hidden_state(backend, comm));
  backend.synchronize();
  require_finite(values, "the logits of the timed steps", comm);
}

// The first layer and sequence whose expert set at TP-k differs from TP-1's,
// as one line; empty when all agree. *min_margin: TP-1's smallest top-k
// margin over layers. A margin below `tolerance` is a near-tie that the
// reduction order alone may flip, and the line says so.
std::string routing_difference(const std::vector<LayerRouting>& tp_k, const std::vector<LayerRouting>& tp_1, int tp,
                               double tolerance, double* min_margin) {
  *min_margin = std::numeric_limits<double>::infinity();
  for (const LayerRouting& layer : tp_1) *min_margin = std::min(*min_margin, layer.min_margin);
  for (std::size_t layer = 0; layer < tp_1.size(); ++layer) {
    const LayerRouting& a = tp_k[layer];
    const LayerRouting& b = tp_1[layer];
    const auto top = static_cast<std::ptrdiff_t>(b.experts_per_token);
    for (int seq = 0; seq < b.batch; ++seq) {
      std::vector<int> mine(a.experts.begin() + seq * top, a.experts.begin() + (seq + 1) * top);
      std::vector<int> theirs(b.experts.begin() + seq * top, b.experts.begin() + (seq + 1) * top);
      std::sort(mine.begin(), mine.end());
      std::sort(theirs.begin(), theirs.end());
      if (mine != theirs)
        return fmt::format("TP-{} routes sequence {} of layer {} to experts [{}], TP-1 to [{}] (TP-1's smallest top-k "
                           "margin {:.3g}{})",
                           tp, seq, layer, fmt::join(mine, ","), fmt::join(theirs, ","), *min_margin,
                           *min_margin < tolerance
                               ? fmt::format(", below the tolerance {:.3g}: a near-tie, try another point", tolerance)
                               : std::string());
    }
  }
  return {};
}

// Outside any timing: one step with every layer's output inspected, then
// (on the group's first rank, k > 1, collectives on) the same step at TP-1.
StepCheck check_step(Backend& backend, Communicator* comm, const ModelConfig& config, const StepPoint& point,
                     const StepOptions& options, const DecoderWeights& weights, DecodeState& state) {
  decode_step(backend, comm, config, weights, state, nullptr, finite_hidden_state(backend, comm));
  backend.synchronize();
  const int shards = comm ? comm->size() : 1;
  const std::vector<float> logits =
      logits_in_vocab_order(backend, comm ? *state.logits_all : *state.logits, shards, point.batch);
  require_finite(logits, "the logits", comm);

  StepCheck check;
  check.tokens = download_all<std::int32_t>(backend, *state.next_tokens);
  if (config.is_moe() && comm && comm->size() > 1) {
    check.failure = routing_disagreement(backend, *comm, state.moe.routing);
    if (!check.failure.empty()) return check;
  }
  if (!comm || comm->rank() != 0 || point.tp == 1) return check;

  const ShardPlan plan1 = make_shard_plan(config, 1, 0);
  const DecoderWeights weights1 = build_decoder_weights(backend, config, plan1, options.seed);
  DecodeState state1 = build_decode_state(backend, config, plan1, point.batch, point.context, options.seed);
  decode_step(backend, nullptr, config, weights1, state1, nullptr);
  backend.synchronize();
  const std::vector<float> reference = logits_in_vocab_order(backend, *state1.logits, 1, point.batch);
  check.reference_tokens = download_all<std::int32_t>(backend, *state1.next_tokens);
  check.compared = true;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    check.max_abs_logit = std::max(check.max_abs_logit, static_cast<double>(std::fabs(reference[i])));
    check.max_abs_logit_diff =
        std::max(check.max_abs_logit_diff, static_cast<double>(std::fabs(logits[i] - reference[i])));
  }
  check.tolerance = relative_logit_tolerance(state.logits->type) * std::max(1.0, check.max_abs_logit);
  if (config.is_moe()) {
    check.routing_compared = true;
    check.failure = routing_difference(state.moe.routing, state1.moe.routing, point.tp, check.tolerance,
                                       &check.min_routing_margin);
    if (!check.failure.empty()) return check;
  }
  if (check.tokens != check.reference_tokens)
    check.failure = fmt::format("TP-{} greedy tokens [{}] differ from TP-1's [{}]", point.tp,
                                fmt::join(check.tokens, ","), fmt::join(check.reference_tokens, ","));
  else if (!(check.max_abs_logit_diff <= check.tolerance))
    check.failure = fmt::format("TP-{} logits differ from TP-1's by {:.3g}, above the tolerance {:.3g} ({})", point.tp,
                                check.max_abs_logit_diff, check.tolerance, logit_tolerance_reason(state.logits->type));
  return check;
}

}  // namespace

const DecoderWeights& WeightCache::get(Backend& backend, const ModelConfig& config, const ShardPlan& plan,
                                       std::uint64_t seed) {
  const ShardKey shard{&backend, &config, plan.tp, plan.rank, seed};
  if (!weights_ || shard_ != shard) {
    weights_.reset();  // release the previous shard before drawing the next one
    weights_.emplace(build_decoder_weights(backend, config, plan, seed));
    shard_ = shard;
  }
  return *weights_;
}

DecodeStateCache::Entry& DecodeStateCache::get(Backend& backend, const ModelConfig& config, const ShardPlan& plan,
                                               int batch, int context, std::uint64_t seed, bool* built) {
  const ShardKey shard{&backend, &config, plan.tp, plan.rank, seed};
  TPB_CHECK(entries_.empty() || shard_ == shard, "decode state cache: one cache serves one shard");
  shard_ = shard;
  const auto found = entries_.find({batch, context});
  *built = found == entries_.end();
  if (!*built) return found->second;
  return entries_.emplace(std::pair{batch, context},
                          Entry{build_decode_state(backend, config, plan, batch, context, seed), {}})
      .first->second;
}

StepTerms run_step_point(Backend& backend, Communicator* group, const ModelConfig& config, const StepPoint& point,
                         const StepOptions& options, WeightCache* cache, DecodeStateCache* states) {
  if (group) {
    TPB_CHECK(group->size() == point.tp,
              fmt::format("step: a TP-{} point needs a group of {} ranks, got {}", point.tp, point.tp, group->size()));
    if (group->memory_kind() != backend.memory_kind())
      throw UsageError(fmt::format("--backend {}: the {} communicator works on {} memory, the backend on {}",
                                   backend.name(), group->backend_name(),
                                   to_string(group->memory_kind()), to_string(backend.memory_kind())));
  }
  const ShardPlan plan = make_shard_plan(config, point.tp, group ? group->rank() : 0);
  std::optional<WeightCache> own_weights;
  if (!cache) cache = &own_weights.emplace();
  const DecoderWeights& weights = cache->get(backend, config, plan, options.seed);
  std::optional<DecodeStateCache> own_states;
  if (!states) states = &own_states.emplace();
  bool fresh = false;
  DecodeStateCache::Entry& kept = states->get(backend, config, plan, point.batch, point.context, options.seed, &fresh);
  DecodeState& state = kept.state;
  // A group of one rank issues no collective: k = 1 has none (n_ar = 0).
  Communicator* comm = options.no_comm || point.tp == 1 ? nullptr : group;

  StepTerms terms;
  terms.weight_type = backend.storage_type(TensorRole::weight);
  terms.activation_type = state.partial->type;
  terms.ar_bytes = static_cast<std::int64_t>(state.partial->bytes());
  terms.n_ar = comm ? 2LL * config.num_layers : 0;
  terms.device = backend.device_description();
  if (options.check) terms.check = check_step(backend, comm, config, point, options, weights, state);

  // Per-op timestamps: always on where they are host clock reads, only when
  // profiling where they are device events (they perturb an eager GPU step),
  // never inside a captured graph.
  const bool timed_ops = !options.graph && (backend.host_synchronous() ? options.timers : options.profile);
  StepTimeline* timeline = nullptr;
  if (timed_ops) {
    std::unique_ptr<StepTimeline>& slot = kept.timelines[comm ? 1 : 0];
    if (!slot) {
      slot = std::make_unique<StepTimeline>(backend);
      fresh = true;
    }
    timeline = slot.get();
  }
  // The first step on a new state touches its fresh activations, and the
  // first step a timeline marks creates its events: keep both out of the
  // timed steps when no warm-up does. A graph runs its own eager step first.
  if (fresh && options.warmup == 0 && !options.graph) {
    decode_step(backend, comm, config, weights, state, timeline);
    backend.synchronize();
  }

  std::optional<CapturedStepGraph> captured;
  if (options.graph) {
    decode_step(backend, comm, config, weights, state, nullptr);  // first-call setup stays out of the capture
    wait_for_step(backend, comm);
    captured.emplace(backend);
    backend.capture_begin();
    decode_step(backend, comm, config, weights, state, nullptr);
    backend.capture_end();
  }

  Communicator* const start_together = options.lockstep ? options.lockstep : group;
  for (int iteration = 0; iteration < options.warmup + options.iters; ++iteration) {
    if (start_together) start_together->barrier();
    const Clock::time_point start = Clock::now();
    if (options.graph)
      backend.graph_launch();
    else
      decode_step(backend, comm, config, weights, state, timeline);
    const Clock::time_point issued = Clock::now();
    wait_for_step(backend, comm);
    const Clock::time_point finished = Clock::now();
    if (iteration < options.warmup) continue;

    terms.t_rank_us.push_back(microseconds(start, finished));
    terms.t_host_us.push_back(microseconds(start, issued));
    if (timeline) {
      const std::array<double, kPhaseCount> phases = timeline->phase_us();
      for (int p = 0; p < kPhaseCount; ++p) terms.phase_us[static_cast<std::size_t>(p)].push_back(phases[static_cast<std::size_t>(p)]);
      if (comm) {
        terms.t_ar_insitu_us.push_back(phases[static_cast<std::size_t>(Phase::all_reduce)]);
        terms.t_ag_insitu_us.push_back(phases[static_cast<std::size_t>(Phase::all_gather)]);
      }
    }
  }
  require_finite_logits(backend, comm, config, weights, state);
  // The weights the step read: its ledger, given the experts it routed to.
  std::vector<int> touched_per_layer;
  for (const LayerRouting& layer : state.moe.routing) {
    terms.experts_touched.push_back(experts_touched(layer));
    touched_per_layer.push_back(static_cast<int>(terms.experts_touched.back().size()));
  }
  const MemoryTypes types{terms.weight_type, backend.storage_type(TensorRole::kv_cache), terms.activation_type,
                          backend.storage_type(TensorRole::logits)};
  terms.weight_bytes_per_step =
      phase_ledger(config, point.tp, point.batch, point.context, types, comm != nullptr, touched_per_layer)
          .weight_bytes_per_step();
  return terms;
}

void measure_collectives_in_situ(Backend& backend, Communicator* group, const ModelConfig& config,
                                 const StepPoint& point, const StepOptions& options, WeightCache* cache,
                                 DecodeStateCache* states, StepTerms* terms) {
  if (!group || point.tp == 1 || options.no_comm || !terms->t_ar_insitu_us.empty()) return;
  StepOptions profiled = options;
  profiled.graph = false;   // a captured graph holds no per-operation events
  profiled.profile = true;  // device events between operations
  profiled.timers = true;   // host clock reads between operations
  profiled.check = false;   // checked once already, before the timed iterations
  const StepTerms extra = run_step_point(backend, group, config, point, profiled, cache, states);
  terms->t_ar_insitu_us = extra.t_ar_insitu_us;
  terms->t_ag_insitu_us = extra.t_ag_insitu_us;
  terms->collectives_profiled_separately = true;
}

}  // namespace tpb
