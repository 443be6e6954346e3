#include "results/environment_file.hpp"

#include "results/layout.hpp"

namespace tpb {

void write_host_environment(H5File& file, const HostEnvironment& env) {
  H5Handle meta = file.group(kMetaGroup);
  write_attributes(meta.id(), {{"env_cpu_model", env.cpu_model}, {"env_cpu_cores", env.cpu_cores},
                               {"env_governor", env.governor}, {"env_smt", env.smt},
                               {"env_load_average", env.load_average}, {"env_cgroup_cpu_quota", env.cgroup_cpu_quota},
                               {"env_clocksource", env.clocksource}, {"env_binding", env.binding}});
}

std::optional<HostCpu> read_host_cpu(const H5File& file) {
  if (!file.exists(kMetaGroup)) return std::nullopt;
  H5Handle meta = file.open_object(kMetaGroup);
  if (!has_attribute(meta.id(), "env_cpu_model") || !has_attribute(meta.id(), "env_cpu_cores")) return std::nullopt;
  return HostCpu{read_string_attribute(meta.id(), "env_cpu_model"),
                 static_cast<int>(read_integer_attribute(meta.id(), "env_cpu_cores"))};
}

void write_model_config(H5File& file, const ModelConfigRecord& c) {
  H5Handle group = file.group(kConfigGroup);
  const hid_t g = group.id();
  write_attributes(g, {{"json", c.json}, {"name", c.name}, {"model_type", c.model_type},
                       {"hidden_size", c.hidden_size}, {"intermediate_size", c.intermediate_size},
                       {"num_hidden_layers", c.num_hidden_layers},
                       {"num_hidden_layers_in_file", c.num_hidden_layers_in_file},
                       {"num_attention_heads", c.num_attention_heads}, {"num_key_value_heads", c.num_key_value_heads},
                       {"head_dim", c.head_dim}, {"vocab_size", c.vocab_size},
                       {"max_position_embeddings", c.max_position_embeddings}, {"rms_norm_eps", c.rms_norm_eps},
                       {"rope_theta", c.rope_theta}, {"rope_scaling", c.llama3_rope_scaling ? "llama3" : "none"}});
  if (c.llama3_rope_scaling)
    write_attributes(g, {{"rope_scaling_factor", c.rope_scaling_factor},
                         {"rope_scaling_low_freq_factor", c.rope_scaling_low_freq_factor},
                         {"rope_scaling_high_freq_factor", c.rope_scaling_high_freq_factor},
                         {"rope_scaling_original_max_position_embeddings",
                          c.rope_scaling_original_max_position_embeddings}});
  write_attributes(g, {{"tie_word_embeddings", c.tie_word_embeddings}, {"qkv_bias", c.qkv_bias},
                       {"parameters", c.parameters}});
}

}  // namespace tpb
