#pragma once
// The pre-allocation check of step, replay, calibrate and run: before any
// tensor or results file exists, every rank estimates its bytes at the
// largest point of its grid (tp_decoder/memory_estimate.hpp) and compares
// them with what it may use (--mem-per-device, or the host's or device's free
// memory shared among its ranks: mpi_bench/memory_ledger.hpp). --dry-run
// prints both and stops there.
#include <string>

#include "mpi_bench/grid_options.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "mpi_bench/rank_context.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

struct MemoryPlan {
  MemoryEstimate largest;  // this rank's largest grid point, term by term
  MemoryBudget budget;     // what it is compared with
};

// UsageError with check_fits()'s one line when the largest point does not
// fit. `setup.tp` is ignored (every k of the grid is estimated); run it inside
// validate_collectively so that every rank exits 2 together.
MemoryPlan check_grid_memory(const ModelConfig& config, const GridChoice& choice, MemorySetup setup,
                             const RankContext& ranks);

// Whether `choice` is a --dry-run, which ends the command here: world rank 0
// prints the grid, the estimate per rank and the budget.
bool finish_dry_run(const std::string& command, const RankContext& ranks, const ModelConfig& config,
                    const GridChoice& choice, const MemoryPlan& plan);

}  // namespace tpb
