#include "mpi_bench/step_output.hpp"

#include <fmt/format.h>


#include "collectives/mpi_check.hpp"
#include "collectives/sample_gather.hpp"
#include "common/samples.hpp"
#include "common/error.hpp"
#include "results/layout.hpp"

namespace tpb {

StepPointRecord gather_step_point(MPI_Comm comm, int tp, const StepTerms& mine) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  TPB_CHECK(tp >= 1 && size % tp == 0, fmt::format("step output: {} ranks do not split into groups of {}", size, tp));
  StepPointRecord record;
  record.iters = static_cast<int>(mine.t_rank_us.size());
  record.ranks = size;
  record.groups = size / tp;
  // Whether a term was measured is decided by the options, so every rank agrees.
  record.t_rank_us = gather_by_iteration(comm, mine.t_rank_us);
  record.t_host_us = gather_by_iteration(comm, mine.t_host_us);
  record.t_ar_insitu_us = gather_by_iteration(comm, mine.t_ar_insitu_us);
  record.t_ag_insitu_us = gather_by_iteration(comm, mine.t_ag_insitu_us);
  // One matrix per phase, under the phase's name; none when phases were not
  // measured (and none off rank 0, where every gather comes back empty).
  for (int p = 0; p < kPhaseCount; ++p) {
    std::vector<double> matrix = gather_by_iteration(comm, mine.phase_us[static_cast<std::size_t>(p)]);
    if (!matrix.empty()) record.phase_us.emplace_back(phase_name(static_cast<Phase>(p)), std::move(matrix));
  }
  if (rank != 0) return record;

  record.tp_group.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) record.tp_group[static_cast<std::size_t>(r)] = r / tp;
  record.t_step_us = slowest_rank_of_each_group(record.t_rank_us, static_cast<std::size_t>(size),
                                                static_cast<std::size_t>(tp));
  return record;
}

std::string step_point_path(const StepRunInfo& info) {
  return step_point_path(step_root_for(info.replay, info.options.graph, info.options.no_comm), info.point.tp,
                         info.point.batch, info.point.context);
}

StepPointAttributes step_point_attributes(const StepRunInfo& info, const ModelConfig& config, const StepTerms& t,
                                          const Communicator* group) {
  const StepOptions& o = info.options;
  StepPointAttributes a;
  a.tp = info.point.tp;
  a.batch = info.point.batch;
  a.context = info.point.context;
  a.layers = config.num_layers;
  a.layers_in_file = config.num_layers_in_file;
  a.model = config.name;
  a.backend = info.backend;
  if (group && group->size() > 1 && !o.no_comm) {  // a group of one issues no collective
    a.collective = group->backend_name();
    a.collective_memory = std::string(to_string(group->memory_kind()));
  }
  a.device = t.device;
  a.dtype = to_string(t.weight_type);
  a.activation_dtype = to_string(t.activation_type);
  a.ar_bytes = t.ar_bytes;
  a.n_ar = t.n_ar;
  a.no_comm = o.no_comm;
  a.graph = o.graph;
  a.profile = o.profile;
  a.timers = o.timers;
  a.collectives_profiled_separately = t.collectives_profiled_separately;
  a.warmup = o.warmup;
  a.iters = o.iters;
  a.seed = fmt::format("{:#x}", o.seed);
  a.weight_bytes_per_step = t.weight_bytes_per_step;
  if (config.is_moe()) {
    a.experts_per_layer = config.moe.num_experts;
    a.experts_touched.assign(static_cast<std::size_t>(config.num_layers) * a.experts_per_layer, 0);
    for (std::size_t layer = 0; layer < t.experts_touched.size(); ++layer)
      for (int expert : t.experts_touched[layer])
        a.experts_touched[layer * static_cast<std::size_t>(a.experts_per_layer) + static_cast<std::size_t>(expert)] = 1;
  }
  if (o.check)
    a.check = StepPointCheck{t.check.compared,  t.check.max_abs_logit_diff,
                             t.check.max_abs_logit, t.check.tolerance,
                             logit_tolerance_reason(t.activation_type), t.check.failure.empty()};
  return a;
}

ModelConfigRecord model_config_record(const ModelConfig& c) {
  const RopeScaling& r = c.rope_scaling;
  return {.json = c.json_text, .name = c.name, .model_type = c.model_type, .hidden_size = c.hidden_size,
          .intermediate_size = c.intermediate_size, .num_hidden_layers = c.num_layers,
          .num_hidden_layers_in_file = c.num_layers_in_file, .num_attention_heads = c.num_heads,
          .num_key_value_heads = c.num_kv_heads, .head_dim = c.head_dim, .vocab_size = c.vocab_size,
          .max_position_embeddings = c.max_position_embeddings, .rms_norm_eps = c.rms_norm_eps,
          .rope_theta = c.rope_theta, .llama3_rope_scaling = r.llama3, .rope_scaling_factor = r.factor,
          .rope_scaling_low_freq_factor = r.low_freq_factor, .rope_scaling_high_freq_factor = r.high_freq_factor,
          .rope_scaling_original_max_position_embeddings = r.original_max_position_embeddings,
          .tie_word_embeddings = c.tie_word_embeddings, .qkv_bias = c.qkv_bias,
          .parameters = parameter_count(c)};
}

}  // namespace tpb
