#include "mpi_bench/pipeline/study_runtime.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <nlohmann/json.hpp>

#include <cstdio>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/node_check.hpp"
#include "collectives/sample_gather.hpp"
#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/decision_options.hpp"
#include "mpi_bench/pipeline/shard_residency.hpp"
#include "mpi_bench/pipeline/study_rounds.hpp"
#include "mpi_bench/step_output.hpp"
#include "mpi_bench/watchdog.hpp"
#include "predictor/json_field.hpp"
#include "predictor/sha256.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

// World rank 0's text to every rank, its length first.
void broadcast(std::string& text) {
  std::uint64_t length = text.size();
  MPI_CHECK(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
  text.resize(length);
  MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD));
}

// What a later stage needs of the declaration, as one JSON text: serialized
// once by rank 0, sent in one broadcast, read back by every rank. One list of
// its members drives both sides (predictor/json_field.hpp); the backend and
// the collective travel by name.
constexpr auto kDeclarationMembers = [](auto&& visit, auto& d) {
  visit("model_path", d.model_path);
  kGridMembers(visit, d.grid);
  visit("layers", d.layers);
  visit("warmup_iters", d.warmup_iters);
  visit("iters", d.iters);
  visit("sweep_iters", d.sweep_iters);
  visit("bootstrap_seed", d.bootstrap_seed);
  visit("bootstrap_resamples", d.bootstrap_resamples);
  visit("rounds", d.rounds);
  visit("time_budget_s", d.time_budget_s);
};

nlohmann::ordered_json declaration_json(const StudyDeclaration& d) {
  nlohmann::ordered_json j = members_json(d, kDeclarationMembers);
  j["backend"] = to_string(d.backend);
  j["collective"] = to_string(d.collective);
  return j;
}

StudyDeclaration declaration_from_json(const nlohmann::ordered_json& j) {
  StudyDeclaration d;
  read_members(j, "study declaration", d, kDeclarationMembers);
  d.backend = parse_backend_kind("study backend", j.at("backend").get<std::string>());
  d.collective = parse_collective_kind("study collective", j.at("collective").get<std::string>());
  return d;
}

}  // namespace

ShardCacheKey shard_cache_key(int point_tp, bool replay) { return {point_tp, replay && point_tp > 1}; }

ShardCache& shard_cache_for(StudyRuntime& rt, int point_tp, bool replay) {
  return rt.shards[shard_cache_key(point_tp, replay)];
}

MemorySetup study_memory_setup(const StudyDeclaration& d) {
  return MemorySetup{d.backend, d.collective, backend_memory_types(d.backend), 1, false, true,
                     round_group_degrees(d.grid.tp)};
}

StudyRuntime start_study_runtime(const StudyDeclaration& declaration) {
  StudyRuntime rt;
  rt.declaration = declaration;
  validate_collectively(MPI_COMM_WORLD, [&] {
    rt.ranks = bootstrap_ranks(MPI_COMM_WORLD, declaration.backend == BackendKind::cuda);
    rt.config = load_model_config(declaration.model_path);
    if (declaration.layers > 0) rt.config = with_layers(rt.config, declaration.layers);
    for (int k : declaration.grid.tp) {
      require_tp_degree(k, rt.ranks.size);
      const std::string problem = shard_plan_problem(rt.config, k);
      if (!problem.empty()) throw UsageError(problem);
    }
    if (declaration.collective == CollectiveKind::oneshot)
      require_tp_groups_on_one_node(MPI_COMM_WORLD, declaration.grid.tp, "--collective oneshot");
    check_predicted_degrees(rt.config, declaration.decision);
    // Before the backend exists: nothing is allocated for a grid that cannot
    // fit. With the groups the rounds hold at once (for calibrate too: it
    // refuses a study whose measurement could not run).
    rt.memory = check_grid_memory(rt.config, declaration, study_memory_setup(declaration), rt.ranks);
    if (declaration.dry_run) return;
    rt.backend = make_backend(declaration.backend, rt.config);
  });
  rt.world = make_communicator(declaration.collective,
                               collective_memory(declaration.collective, declaration.backend), MPI_COMM_WORLD);
  // Before the first shard is drawn: every shard then reads memory from one
  // pool, so that the ratio of two conditions does not depend on where either
  // landed (tp_decoder/cpu/weight_arena.hpp).
  reserve_study_weights(rt);
  return rt;
}

std::vector<int> collective_degrees(const std::vector<int>& grid_tp) {
  std::vector<int> degrees;
  for (int k : grid_tp)
    if (k > 1) degrees.push_back(k);
  return degrees;
}

Workload describe_workload(const StudyRuntime& rt) {
  const StudyDeclaration& d = rt.declaration;
  return {rt.config.name,
          d.model_path,
          sha256_hex(rt.config.json_text),
          rt.config.num_layers,
          rt.config.hidden_size,
          rt.config.vocab_size,
          static_cast<int>(element_size(rt.backend->storage_type(TensorRole::activation))),
          std::string(to_string(d.backend)),
          d.warmup_iters,
          d.iters,
          d.bootstrap_seed,
          d.bootstrap_resamples};
}

CollectiveKind stored_study_collective(const StudyDesign& design, BackendKind backend) {
  return design.collective.empty() ? default_collective_kind(backend)
                                   : parse_collective_kind("study collective", design.collective);
}

StudyDeclaration broadcast_declaration(const RankContext& ranks, const std::string& file_path) {
  StudyDeclaration d;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!ranks.is_root()) return;
    const H5File file(file_path, H5Mode::read_only);
    Workload w;
    read_study_declaration(file, &w, &d.grid);
    const StudyDesign design = read_study_design(file);
    d.model_path = w.config_path;
    d.backend = parse_backend_kind("study backend", w.backend);
    d.collective = stored_study_collective(design, d.backend);
    d.layers = w.layers;
    d.warmup_iters = w.warmup_iters;
    d.iters = w.iters;
    d.sweep_iters = design.sweep_iters;
    d.bootstrap_seed = w.bootstrap_seed;
    d.bootstrap_resamples = w.bootstrap_resamples;
    d.rounds = design.rounds;
    d.time_budget_s = design.time_budget_s;
  });
  std::string text = ranks.is_root() ? declaration_json(d).dump() : std::string();
  broadcast(text);
  return declaration_from_json(nlohmann::ordered_json::parse(text));
}

GatheredPoint run_point_everywhere(StudyRuntime& rt, Communicator* group, const StepPoint& point,
                                   const StepOptions& options, InSituCollectives in_situ, PointState state) {
  rt.world->barrier();  // every group starts together, as the ranks of one job would
  ShardCache& shard = shard_cache_for(rt, point.tp, group == nullptr);
  DecodeStateCache* states = state == PointState::kept ? &shard.states : nullptr;
  StepOptions every_step_together = options;
  every_step_together.lockstep = rt.world.get();
  StepTerms terms = run_step_point(*rt.backend, group, rt.config, point, every_step_together, &shard.weights, states);
  if (in_situ == InSituCollectives::measure)
    measure_collectives_in_situ(*rt.backend, group, rt.config, point, options, &shard.weights, states, &terms);
  const StepRunInfo info{std::string(to_string(rt.declaration.backend)), point, options, group == nullptr};
  const int group_size = group ? point.tp : 1;  // a replay rank is a group of its own
  const StepPointRecord world = gather_step_point(MPI_COMM_WORLD, group_size, terms);
  GatheredPoint out;
  if (!rt.ranks.is_root()) return out;
  out.path = step_point_path(info);
  out.group0 = record_columns(world, 0, group_size);
  out.attributes = step_point_attributes(info, rt.config, terms, group);
  out.all_ranks_t_rank_us = world.t_rank_us;
  out.all_ranks_t_host_us = world.t_host_us;
  if (!terms.collectives_profiled_separately && !world.t_ar_insitu_us.empty())
    for (std::size_t i = 0; i < world.t_ar_insitu_us.size(); ++i)
      out.all_ranks_collective_us.push_back(world.t_ar_insitu_us[i] + world.t_ag_insitu_us[i]);
  return out;
}

void write_gathered_point(ResultsFile& file, const GatheredPoint& point) {
  write_step_point(file.h5(), point.path, point.group0, point.attributes);
  file.flush();
}

std::vector<double> run_point_each_rank_alone(StudyRuntime& rt, Communicator& own_group, const StepPoint& point,
                                              const StepOptions& options) {
  std::vector<double> mine(static_cast<std::size_t>(options.iters), 0.0);
  for (int r = 0; r < rt.ranks.size; ++r) {
    rt.world->barrier();
    if (rt.ranks.rank == r)
      mine = run_step_point(*rt.backend, &own_group, rt.config, point, options,
                            &shard_cache_for(rt, point.tp, false).weights)
                 .t_rank_us;
  }
  rt.world->barrier();
  return gather_by_iteration(MPI_COMM_WORLD, mine);
}

void study_progress(const StudyRuntime& rt, const std::string& line) {
  report_progress("study", line);  // every rank: the watchdog sees each point start
  if (!rt.ranks.is_root()) return;
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace tpb
