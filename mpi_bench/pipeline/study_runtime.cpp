#include "mpi_bench/pipeline/study_runtime.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/watchdog.hpp"
#include "predictor/sha256.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--model: cannot read '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each rank's per-iteration vector -> iterations × ranks on rank 0.
std::vector<double> gather_columns(MPI_Comm comm, const std::vector<double>& mine, int iters) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  TPB_CHECK(static_cast<int>(mine.size()) == iters,
            fmt::format("rank {} measured {} iterations, expected {}", rank, mine.size(), iters));
  std::vector<double> by_rank(rank == 0 ? static_cast<std::size_t>(iters) * size : 0);
  MPI_CHECK(MPI_Gather(mine.data(), iters, MPI_DOUBLE, by_rank.data(), iters, MPI_DOUBLE, 0, comm));
  std::vector<double> by_iteration(by_rank.size());
  for (int r = 0; r < (rank == 0 ? size : 0); ++r)
    for (int i = 0; i < iters; ++i) by_iteration[static_cast<std::size_t>(i) * size + r] = by_rank[static_cast<std::size_t>(r) * iters + i];
  return by_iteration;
}

// Keeps the first `columns` columns of an iterations × ranks table.
std::vector<double> first_columns(const std::vector<double>& table, int ranks, int columns) {
  std::vector<double> out;
  for (std::size_t row = 0; row < table.size(); row += static_cast<std::size_t>(ranks))
    out.insert(out.end(), table.begin() + static_cast<std::ptrdiff_t>(row),
               table.begin() + static_cast<std::ptrdiff_t>(row) + columns);
  return out;
}

}  // namespace

StudyRuntime start_study_runtime(const StudyDeclaration& declaration) {
  StudyRuntime rt;
  rt.declaration = declaration;
  validate_collectively(MPI_COMM_WORLD, [&] {
    rt.ranks = bootstrap_ranks(MPI_COMM_WORLD, declaration.backend == "cuda");
    rt.config = load_model_config(declaration.model_path);
    if (declaration.layers > 0) rt.config = with_layers(rt.config, declaration.layers);
    for (int k : declaration.grid.tp) {
      if (rt.ranks.size % k != 0)
        throw UsageError(fmt::format("--tp: {} does not divide the {} ranks of this launch", k, rt.ranks.size));
      const std::string problem = shard_plan_problem(rt.config, k);
      if (!problem.empty()) throw UsageError(problem);
    }
    rt.backend = make_backend(declaration.backend);
  });
  rt.world = make_communicator(declaration.backend == "cuda" ? "nccl" : "mpi", MPI_COMM_WORLD);
  return rt;
}

Workload describe_workload(const StudyRuntime& rt) {
  const StudyDeclaration& d = rt.declaration;
  return {rt.config.name,
          d.model_path,
          sha256_hex(read_text_file(d.model_path)),
          rt.config.num_layers,
          rt.config.hidden_size,
          rt.config.vocab_size,
          static_cast<int>(element_size(rt.backend->storage_type(TensorRole::activation))),
          d.backend,
          d.warmup_iters,
          d.iters,
          d.bootstrap_seed,
          d.bootstrap_resamples};
}

StudyDeclaration broadcast_declaration(const RankContext& ranks, const std::string& file_path) {
  std::string text;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!ranks.is_root()) return;
    const H5File file(file_path, H5Mode::read_only);
    Workload w;
    Grid g;
    read_study_declaration(file, &w, &g);
    H5Handle study = file.open_object("/study");
    text = nlohmann::json{{"model_path", w.config_path},     {"tp", g.tp},
                          {"batch", g.batch},                {"context", g.context},
                          {"backend", w.backend},            {"layers", w.layers},
                          {"warmup_iters", w.warmup_iters},  {"iters", w.iters},
                          {"sweep_iters", read_integer_attribute(study.id(), "sweep_iters")},
                          {"bootstrap_seed", w.bootstrap_seed},
                          {"bootstrap_resamples", w.bootstrap_resamples}}
               .dump();
  });
  int length = static_cast<int>(text.size());
  MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD));
  text.resize(static_cast<std::size_t>(length));
  MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD));
  const auto j = nlohmann::json::parse(text);
  StudyDeclaration d;
  d.model_path = j.at("model_path").get<std::string>();
  d.grid = {j.at("tp").get<std::vector<int>>(), j.at("batch").get<std::vector<int>>(),
            j.at("context").get<std::vector<int>>()};
  d.backend = j.at("backend").get<std::string>();
  d.layers = j.at("layers").get<int>();
  d.warmup_iters = j.at("warmup_iters").get<int>();
  d.iters = j.at("iters").get<int>();
  d.sweep_iters = j.at("sweep_iters").get<int>();
  d.bootstrap_seed = j.at("bootstrap_seed").get<std::uint64_t>();
  d.bootstrap_resamples = j.at("bootstrap_resamples").get<int>();
  return d;
}

GatheredPoint run_point_everywhere(StudyRuntime& rt, Communicator* group, const StepPoint& point,
                                   const StepOptions& options) {
  rt.world->barrier();  // every group starts together, as the ranks of one job would
  const StepTerms terms = run_step_point(*rt.backend, group, rt.config, point, options, &rt.weights);
  const MPI_Comm world = MPI_COMM_WORLD;
  const int n = rt.ranks.size;
  const int columns = group ? point.tp : 1;
  GatheredPoint out;
  const std::vector<double> step = gather_columns(world, terms.t_rank_us, options.iters);
  const std::vector<double> host = gather_columns(world, terms.t_host_us, options.iters);
  // Collective times exist on every rank or on none (same backend, same options).
  std::vector<double> ar, ag;
  if (!terms.t_ar_insitu_us.empty()) ar = gather_columns(world, terms.t_ar_insitu_us, options.iters);
  if (!terms.t_ag_insitu_us.empty()) ag = gather_columns(world, terms.t_ag_insitu_us, options.iters);
  if (!rt.ranks.is_root()) return out;
  out.all_ranks_t_step_us = step;
  out.first_group = {options.iters, columns, first_columns(step, n, columns), first_columns(host, n, columns),
                     ar.empty() ? ar : first_columns(ar, n, columns), ag.empty() ? ag : first_columns(ag, n, columns)};
  return out;
}

std::vector<double> run_point_each_rank_alone(StudyRuntime& rt, Communicator& own_group, const StepPoint& point,
                                              const StepOptions& options) {
  std::vector<double> mine(static_cast<std::size_t>(options.iters), 0.0);
  for (int r = 0; r < rt.ranks.size; ++r) {
    rt.world->barrier();
    if (rt.ranks.rank == r) mine = run_step_point(*rt.backend, &own_group, rt.config, point, options, &rt.weights).t_rank_us;
  }
  rt.world->barrier();
  return gather_columns(MPI_COMM_WORLD, mine, options.iters);
}

void study_progress(const StudyRuntime& rt, const std::string& line) {
  report_progress("study", line);  // every rank: the watchdog sees each point start
  if (!rt.ranks.is_root()) return;
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace tpb
