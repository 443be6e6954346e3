// mpi_bench kv: the KV-cache ledger. Follows KV bytes per token from the
// model through a paged allocator (payload, whole blocks, final-block waste,
// block-table entries) into the tokens and sequences one device holds under
// TP-k, for a memory budget. No collectives run; rank 0 prints and writes.
#include <fmt/format.h>

#include <memory>

#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/kv_cli.hpp"
#include "mpi_bench/kv_output.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "mpi_bench/step_output.hpp"
#include "predictor/kv_answer.hpp"
#include "results/kv_file.hpp"
#include "results/results_file.hpp"

namespace tpb {
namespace {

// The question for every k: what the estimator says each device holds
// besides its KV cache, at the ledger's dtype and the chosen backend's buffers.
KvQuestion kv_question(const KvCliPlan& plan, const MemoryBudget& budget) {
  KvQuestion q = plan.question;
  q.budget_bytes = budget.bytes;
  for (int k : plan.tp) {
    // A TP-1 deployment makes no collective call, so it holds no communication buffers.
    const MemorySetup setup{plan.backend, plan.collective, dtype_memory_types(plan.dtype), k, false, k > 1};
    q.degrees.push_back(KvDegreeInput{k, ledger_line(memory_terms(plan.config, setup))});
  }
  return q;
}

int run_kv(const KvCliOptions& o, const Invocation& invocation) {
  RankContext ranks;
  KvCliPlan plan;
  MemoryBudget budget;
  KvAnswer answer;
  validate_collectively(MPI_COMM_WORLD, [&] {
    plan = parse_kv_cli(o);
    ranks = bootstrap_ranks(MPI_COMM_WORLD, plan.backend == BackendKind::cuda && !o.mem_per_device);
    budget = memory_budget(o.mem_per_device, plan.backend, ranks);
    answer = answer_kv_question(kv_question(plan, budget));
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> results = open_results_on_root(ranks, o.output, o.overwrite, meta);
  if (!ranks.is_root()) return 0;

  plan.labels.file.budget_source = budget.source;
  if (results) {
    write_model_config(results->h5(), model_config_record(plan.config));
    write_kv_answer(results->h5(), answer, plan.labels.file);
    results->mark_complete();
  }
  if (o.json) {
    fmt::print("{}\n", kv_answer_json(answer, plan.labels).dump(2));
  } else {
    print_kv_tables(answer, plan.labels);
    if (results) fmt::print("# results: {}\n", o.output);
  }
  return 0;
}

}  // namespace

void add_kv_command(CLI::App& root, CommandList& commands) {
  auto o = std::make_shared<KvCliOptions>();
  CLI::App* app = root.add_subcommand(
      "kv", "KV-cache ledger: bytes per token, paged allocation per block size, capacity per device under TP-k");
  add_kv_cli_options(*app, *o);
  commands.push_back({app, [o](const Invocation& inv) { return run_kv(*o, inv); }});
}

}  // namespace tpb
