#include "mpi_bench/step_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collectives/mpi_check.hpp"
#include "common/error.hpp"

namespace tpb {
namespace {

// Every rank's values of one term (each rank holds `count` of them) to rank 0,
// transposed to (count x ranks). Empty when the term was not measured.
std::vector<double> gather_matrix(MPI_Comm comm, const std::vector<double>& mine, int count) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  // Whether a term was measured is decided by the options, so every rank agrees.
  if (mine.empty()) return {};
  TPB_CHECK(static_cast<int>(mine.size()) == count, "step output: ranks recorded different iteration counts");
  std::vector<double> by_rank(rank == 0 ? static_cast<std::size_t>(count) * static_cast<std::size_t>(size) : 0);
  MPI_CHECK(MPI_Gather(mine.data(), count, MPI_DOUBLE, by_rank.data(), count, MPI_DOUBLE, 0, comm));
  if (rank != 0) return {};
  std::vector<double> matrix(by_rank.size());
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < count; ++i)
      matrix[static_cast<std::size_t>(i) * static_cast<std::size_t>(size) + static_cast<std::size_t>(r)] =
          by_rank[static_cast<std::size_t>(r) * static_cast<std::size_t>(count) + static_cast<std::size_t>(i)];
  return matrix;
}

void write_matrix(H5File& file, const std::string& path, const std::vector<double>& values, int iters, int ranks) {
  if (values.empty()) return;
  file.write_dataset(path, values, {static_cast<std::uint64_t>(iters), static_cast<std::uint64_t>(ranks)});
}

}  // namespace

StepPointRecord gather_step_point(MPI_Comm comm, int tp, const StepTerms& mine) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  TPB_CHECK(tp >= 1 && size % tp == 0, fmt::format("step output: {} ranks do not split into groups of {}", size, tp));
  const int iters = static_cast<int>(mine.t_rank_us.size());
  StepPointRecord record;
  record.iters = iters;
  record.ranks = size;
  record.t_rank_us = gather_matrix(comm, mine.t_rank_us, iters);
  record.t_host_us = gather_matrix(comm, mine.t_host_us, iters);
  record.t_ar_insitu_us = gather_matrix(comm, mine.t_ar_insitu_us, iters);
  record.t_ag_insitu_us = gather_matrix(comm, mine.t_ag_insitu_us, iters);
  for (int p = 0; p < kPhaseCount; ++p)
    record.phase_us[static_cast<std::size_t>(p)] = gather_matrix(comm, mine.phase_us[static_cast<std::size_t>(p)], iters);
  if (rank != 0) return record;

  record.root_terms = mine;
  record.tp_group.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) record.tp_group[static_cast<std::size_t>(r)] = r / tp;
  // t_step: the slowest rank of each group, per iteration (every group's column gets its group's value).
  record.t_step_us.resize(record.t_rank_us.size());
  for (int i = 0; i < iters; ++i)
    for (int g = 0; g < size / tp; ++g) {
      const auto row = record.t_rank_us.begin() + static_cast<std::ptrdiff_t>(i) * size;
      const double slowest = *std::max_element(row + g * tp, row + (g + 1) * tp);
      std::fill(record.t_step_us.begin() + static_cast<std::ptrdiff_t>(i) * size + g * tp,
                record.t_step_us.begin() + static_cast<std::ptrdiff_t>(i) * size + (g + 1) * tp, slowest);
    }
  return record;
}

StepPointRecord single_rank_record(const StepTerms& terms) {
  StepPointRecord record;
  record.iters = static_cast<int>(terms.t_rank_us.size());
  record.ranks = 1;
  record.t_step_us = terms.t_rank_us;
  record.t_rank_us = terms.t_rank_us;
  record.t_host_us = terms.t_host_us;
  record.t_ar_insitu_us = terms.t_ar_insitu_us;
  record.t_ag_insitu_us = terms.t_ag_insitu_us;
  record.phase_us = terms.phase_us;
  record.tp_group = {0};
  record.root_terms = terms;
  return record;
}

std::string step_root(const StepRunInfo& info) {
  if (info.replay) return "/replay";
  std::string root = "/step";
  if (info.options.graph) root += "_graph";
  if (info.options.no_comm) root += "_nocomm";
  return root;
}

std::string step_point_path(const StepRunInfo& info) {
  return fmt::format("{}/k{}/b{}_c{}", step_root(info), info.point.tp, info.point.batch, info.point.context);
}

void write_step_point(H5File& file, const StepRunInfo& info, const ModelConfig& config, const StepPointRecord& record) {
  const std::string path = step_point_path(info);
  const int iters = record.iters;
  const int ranks = record.ranks;
  write_matrix(file, path + "/t_step_us", record.t_step_us, iters, ranks);
  write_matrix(file, path + "/t_rank_us", record.t_rank_us, iters, ranks);
  write_matrix(file, path + "/t_host_us", record.t_host_us, iters, ranks);
  write_matrix(file, path + "/t_ar_insitu_us", record.t_ar_insitu_us, iters, ranks);
  write_matrix(file, path + "/t_ag_insitu_us", record.t_ag_insitu_us, iters, ranks);
  for (int p = 0; p < kPhaseCount; ++p)
    write_matrix(file, fmt::format("{}/phase/{}_us", path, phase_name(static_cast<Phase>(p))),
                 record.phase_us[static_cast<std::size_t>(p)], iters, ranks);
  file.write_dataset(path + "/tp_group", record.tp_group, {static_cast<std::uint64_t>(record.tp_group.size())});

  const StepTerms& t = record.root_terms;
  const StepOptions& o = info.options;
  H5Handle group = file.group(path);
  const hid_t g = group.id();
  write_attribute(g, "tp", std::int64_t{info.point.tp});
  write_attribute(g, "batch", std::int64_t{info.point.batch});
  write_attribute(g, "context", std::int64_t{info.point.context});
  write_attribute(g, "layers", std::int64_t{config.num_layers});
  write_attribute(g, "layers_in_file", std::int64_t{config.num_layers_in_file});
  write_attribute(g, "model", config.name);
  write_attribute(g, "backend", info.backend);
  write_attribute(g, "device", t.device);
  write_attribute(g, "dtype", to_string(t.weight_type));
  write_attribute(g, "activation_dtype", to_string(t.activation_type));
  write_attribute(g, "ar_bytes", t.ar_bytes);
  write_attribute(g, "n_ar", t.n_ar);
  write_attribute(g, "no_comm", std::int64_t{o.no_comm ? 1 : 0});
  write_attribute(g, "graph", std::int64_t{o.graph ? 1 : 0});
  write_attribute(g, "profile", std::int64_t{o.profile ? 1 : 0});
  write_attribute(g, "timers", std::int64_t{o.timers ? 1 : 0});
  write_attribute(g, "warmup", std::int64_t{o.warmup});
  write_attribute(g, "iters", std::int64_t{o.iters});
  write_attribute(g, "seed", fmt::format("{:#x}", o.seed));
  write_attribute(g, "weight_bytes_per_step", t.weight_bytes_per_step);
  if (o.no_comm && info.point.tp > 1)
    write_attribute(g, "numerics", std::string("wrong by design: collectives skipped (--no-comm)"));
  if (o.check) {
    write_attribute(g, "check_compared_with_tp1", std::int64_t{t.check.compared ? 1 : 0});
    write_attribute(g, "check_max_abs_logit_diff", t.check.max_abs_logit_diff);
    write_attribute(g, "check_max_abs_logit", t.check.max_abs_logit);
    write_attribute(g, "check_tolerance", t.check.tolerance);
    write_attribute(g, "check_tolerance_reason", logit_tolerance_reason(t.activation_type));
    write_attribute(g, "check_passed", std::int64_t{t.check.failure.empty() ? 1 : 0});
  }
}

void write_model_config(H5File& file, const ModelConfig& config) {
  H5Handle group = file.group("/config");
  const hid_t g = group.id();
  write_attribute(g, "json", config.json_text);
  write_attribute(g, "name", config.name);
  write_attribute(g, "model_type", config.model_type);
  write_attribute(g, "hidden_size", std::int64_t{config.hidden_size});
  write_attribute(g, "intermediate_size", std::int64_t{config.intermediate_size});
  write_attribute(g, "num_hidden_layers", std::int64_t{config.num_layers});
  write_attribute(g, "num_hidden_layers_in_file", std::int64_t{config.num_layers_in_file});
  write_attribute(g, "num_attention_heads", std::int64_t{config.num_heads});
  write_attribute(g, "num_key_value_heads", std::int64_t{config.num_kv_heads});
  write_attribute(g, "head_dim", std::int64_t{config.head_dim});
  write_attribute(g, "vocab_size", std::int64_t{config.vocab_size});
  write_attribute(g, "max_position_embeddings", std::int64_t{config.max_position_embeddings});
  write_attribute(g, "rms_norm_eps", config.rms_norm_eps);
  write_attribute(g, "rope_theta", config.rope_theta);
  write_attribute(g, "rope_scaling", std::string(config.rope_scaling.llama3 ? "llama3" : "none"));
  if (config.rope_scaling.llama3) {
    write_attribute(g, "rope_scaling_factor", config.rope_scaling.factor);
    write_attribute(g, "rope_scaling_low_freq_factor", config.rope_scaling.low_freq_factor);
    write_attribute(g, "rope_scaling_high_freq_factor", config.rope_scaling.high_freq_factor);
    write_attribute(g, "rope_scaling_original_max_position_embeddings",
                    config.rope_scaling.original_max_position_embeddings);
  }
  write_attribute(g, "tie_word_embeddings", std::int64_t{config.tie_word_embeddings ? 1 : 0});
  write_attribute(g, "qkv_bias", std::int64_t{config.qkv_bias ? 1 : 0});
  write_attribute(g, "parameters", static_cast<std::int64_t>(parameter_count(config)));
}

}  // namespace tpb
