#include "tp_decoder/phase_ledger.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "tp_decoder/counting_backend.hpp"
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {

PhaseCost PhaseLedger::total() const {
  PhaseCost sum;
  for (const PhaseCost& p : phases) sum += p;
  return sum;
}

PhaseLedger phase_ledger(const ModelConfig& config, int tp, int batch, int context, const MemoryTypes& types,
                         bool collectives, const std::vector<int>& experts_touched) {
  if (config.is_moe() && experts_touched.size() != static_cast<std::size_t>(config.num_layers))
    throw UsageError(fmt::format("phase ledger: a mixture-of-experts ledger needs the experts touched of each of "
                                 "its {} layers, got {}", config.num_layers, experts_touched.size()));
  // make_shard_plan refuses a degree that does not fit, naming the quantity.
  const ShardPlan plan = make_shard_plan(config, tp, 0);

  // Rank 0's step, issued once on a backend that counts it.
  CountingBackend backend(types);
  if (config.is_moe()) backend.route_to(config.moe, experts_touched);
  const DecoderWeights weights = build_decoder_weights(backend, config, plan, kDefaultSeed);
  DecodeState state = build_decode_state(backend, config, plan, batch, context, kDefaultSeed);
  CountingGroup group(backend, tp);
  StepTimeline timeline(backend);
  // A group of one rank issues no collective (k = 1 has none).
  decode_step(backend, collectives && tp > 1 ? &group : nullptr, config, weights, state, &timeline);

  PhaseLedger ledger;
  const std::vector<Phase>& phases = timeline.phases();
  for (std::size_t i = 0; i < phases.size(); ++i)  // interval 0 built the weights and state
    ledger.phases[static_cast<std::size_t>(phases[i])] += backend.intervals()[i + 1];
  ledger.collectives = group.counts();
  return ledger;
}

}  // namespace tpb
