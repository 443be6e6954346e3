#pragma once
// One decode step of a TP-sharded decoder, written once against the backend
// interface (llama2.c's forward()). The step is the same at every degree k:
// only the shard plan's shapes differ, and two all-reduces per layer join the
// ranks' partial sums.
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

#include "collectives/communicator.hpp"
#include "common/enum_table.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/moe_routing.hpp"
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {

// A mixture-of-experts layer's buffers, and the routing the last step chose.
struct MoeState {
  OwnedTensor router_logits;   // (b, experts)
  OwnedTensor route_weights;   // (experts, b) f32 table: each sequence's weight per expert, 0 where not routed
  OwnedTensor expert_gate_up;  // (b, 2 * expert_intermediate/k)
  OwnedTensor expert_act;      // (b, expert_intermediate/k)
  OwnedTensor expert_out;      // (b, hidden): one expert's partial sum before it is weighted in
  OwnedTensor shared_gate_logit;  // (b, 1), qwen2_moe
  OwnedTensor shared_weight;      // (1, b) f32 table: sigmoid of the shared gate, qwen2_moe
  OwnedTensor shared_gate_up;     // (b, 2 * shared_intermediate/k), qwen2_moe
  OwnedTensor shared_act;         // (b, shared_intermediate/k), qwen2_moe
  std::vector<float> host_logits;   // router logits (or shared gate logits) copied to the host
  std::vector<float> host_weights;  // route_weights before upload
  std::vector<LayerRouting> routing;  // per layer, as the last step routed
};

// One rank's activations and KV cache for `batch` sequences (llama2.c's RunState).
struct DecodeState {
  AttentionShape shape;     // this rank's heads, cache capacity context + 1
  int position = 0;         // the token decoded: every sequence holds `context` tokens before it
  OwnedTensor tokens;       // (1, b) input token of each sequence
  OwnedTensor x;            // (b, hidden) residual stream
  OwnedTensor xn;           // (b, hidden) normalised residual
  OwnedTensor qkv;          // (b, (q_heads + 2*kv_heads) * head_dim)
  OwnedTensor att;          // (b, q_heads * head_dim) attention output
  OwnedTensor partial;      // (b, hidden) O or down output: a partial sum until all-reduced in place
  OwnedTensor gate_up;      // (b, 2 * intermediate/k); dense models only
  OwnedTensor act;          // (b, intermediate/k); dense models only
  OwnedTensor logits;       // (b, vocab/k) this rank's vocabulary shard
  OwnedTensor logits_all;   // (k * b, vocab/k) every shard, in rank order, after the all-gather
  OwnedTensor next_tokens;  // (1, b) greedy choice
  std::vector<OwnedTensor> k_cache;  // per layer (b, kv_heads * (context+1) * head_dim)
  std::vector<OwnedTensor> v_cache;
  MoeState moe;             // empty for a dense model
};

// Allocates the state, draws the KV history of positions [0, context) from
// the synthetic KV tensors (so TP-k caches are slices of TP-1's) and the
// input tokens from the seed.
DecodeState build_decode_state(Backend& backend, const ModelConfig& config, const ShardPlan& plan, int batch,
                               int context, std::uint64_t seed);

// The synthetic input token of sequence `sequence` (same at every degree).
std::int32_t synthetic_token(const ModelConfig& config, std::uint64_t seed, int sequence);

// Phases the step's time is split into; each operation belongs to one.
// A mixture-of-experts layer books each expert's GEMMs and activation to
// gate_up, silu_mul and down like the dense MLP, and adds three phases:
// router (its GEMV, the copy of the logits to the host, top-k and softmax,
// the weights' upload), shared_gate (the shared expert's gate GEMV and its
// sigmoid) and expert_combine (each expert's output weighted into the sum).
enum class Phase : int {
  embedding, norm, qkv, rope_kv, attention, o_proj, all_reduce, residual, gate_up, silu_mul, down, router,
  shared_gate, expert_combine, lm_head, all_gather, argmax
};
// Every phase with its name, in enum order: the phase count is this list's length.
inline constexpr std::pair<Phase, const char*> kPhases[] = {
    {Phase::embedding, "embedding"}, {Phase::norm, "norm"},         {Phase::qkv, "qkv"},
    {Phase::rope_kv, "rope_kv"},     {Phase::attention, "attention"}, {Phase::o_proj, "o_proj"},
    {Phase::all_reduce, "all_reduce"}, {Phase::residual, "residual"}, {Phase::gate_up, "gate_up"},
    {Phase::silu_mul, "silu_mul"},   {Phase::down, "down"},         {Phase::router, "router"},
    {Phase::shared_gate, "shared_gate"}, {Phase::expert_combine, "expert_combine"}, {Phase::lm_head, "lm_head"},
    {Phase::all_gather, "all_gather"}, {Phase::argmax, "argmax"}};
inline constexpr int kPhaseCount = static_cast<int>(std::size(kPhases));
static_assert(lists_enum_in_order(kPhases, Phase::argmax), "kPhases lists every phase once, in enum order");
const char* phase_name(Phase phase);  // "qkv", "all_reduce", ...

// Per-operation timestamps on the backend's stream: each mark closes the
// interval since the previous one and books it to a phase. Host clock reads
// on host-synchronous backends, events elsewhere (only when profiling: they
// perturb an eager GPU step). The first step marked creates the events it
// needs, so the count follows decode_step itself; that step must be untimed.
class StepTimeline {
 public:
  explicit StepTimeline(Backend& backend);
  ~StepTimeline();
  StepTimeline(const StepTimeline&) = delete;
  StepTimeline& operator=(const StepTimeline&) = delete;

  void start();
  void mark(Phase phase);
  // After the step has completed: microseconds per phase, summed over layers.
  std::array<double, kPhaseCount> phase_us();
  // The phase of each interval of the last step marked, in order.
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  Backend& backend_;
  std::vector<EventHandle> events_;
  std::vector<Phase> phases_;  // phases_[i]: the interval ending at events_[i + 1]
};

// Called after each layer with the residual stream (checks only; never timed).
using LayerObserver = std::function<void(int layer, const Tensor& x)>;

// One decode step. `group` is null when collectives are skipped (--no-comm,
// replay): the numerics are then wrong for k > 1 and the tokens come from this
// rank's vocabulary shard only. `timeline` and `after_layer` may be null/empty.
void decode_step(Backend& backend, Communicator* group, const ModelConfig& config, const DecoderWeights& weights,
                 DecodeState& state, StepTimeline* timeline, const LayerObserver& after_layer = {});

}  // namespace tpb
