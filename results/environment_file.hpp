#pragma once
// What a run ran on, as plain values: the host's setup (/meta env_*) and the
// model's config (/config). mpi_bench collects them; rank 0 writes them here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/h5_file.hpp"

namespace tpb {

// Anything unreadable is recorded as "unknown (PATH unreadable)", never guessed.
struct HostEnvironment {
  std::string cpu_model;
  int cpu_cores = 0;  // online
  std::string governor, smt, load_average, cgroup_cpu_quota, clocksource;
  std::vector<std::string> binding;  // per world rank: "rank R: cpus LIST"
};
void write_host_environment(H5File& file, const HostEnvironment& environment);

// The CPU a file's study ran on, from /meta; none in a file written before
// the core count was recorded.
struct HostCpu {
  std::string model;
  int cores = 0;
};
std::optional<HostCpu> read_host_cpu(const H5File& file);

// /config: the config.json text as loaded and the fields parsed from it, under
// its own field names (num_hidden_layers as run, num_hidden_layers_in_file as published).
struct ModelConfigRecord {
  std::string json, name, model_type;
  std::int64_t hidden_size = 0, intermediate_size = 0, num_hidden_layers = 0, num_hidden_layers_in_file = 0,
               num_attention_heads = 0, num_key_value_heads = 0, head_dim = 0, vocab_size = 0,
               max_position_embeddings = 0;
  double rms_norm_eps = 0, rope_theta = 0;
  bool llama3_rope_scaling = false;  // rope_scaling "llama3" with the four rope_scaling_* below, else "none"
  double rope_scaling_factor = 0, rope_scaling_low_freq_factor = 0, rope_scaling_high_freq_factor = 0,
         rope_scaling_original_max_position_embeddings = 0;
  bool tie_word_embeddings = false, qkv_bias = false;
  std::int64_t parameters = 0;  // the whole model's
};
void write_model_config(H5File& file, const ModelConfigRecord& config);

}  // namespace tpb
