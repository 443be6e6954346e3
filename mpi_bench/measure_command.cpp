// mpi_bench measure: the rounds of a registered study (study_rounds.hpp).

#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "common/error.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "mpi_bench/pipeline/study_rounds.hpp"
#include "mpi_bench/provenance.hpp"

namespace tpb {
namespace {

struct MeasureOptions {
  std::string file;  // FILE.h5, calibrated and registered
  DesignClaimFlags claims;  // each given one must equal the sealed design
};

int run_measure(const MeasureOptions& options, const Invocation&) {
  RankContext ranks;
  validate_collectively(MPI_COMM_WORLD, [&] { ranks = bootstrap_ranks(MPI_COMM_WORLD, false); });
  const StudyDeclaration declaration = broadcast_declaration(ranks, options.file);
  StudyRuntime runtime = start_study_runtime(declaration);
  std::unique_ptr<ResultsFile> file;
  validate_collectively(MPI_COMM_WORLD, [&] {
    const DesignClaims claims = parse_design_claims(options.claims);
    if (!runtime.ranks.is_root()) return;
    {  // Refuse a claim before opening for writing: opening marks the file complete=0.
      const H5File sealed(options.file, H5Mode::read_only);
      if (has_prereg(sealed)) {  // else measure_stage refuses it, naming why
        const std::string difference =
            design_claims_difference(parse_registration(read_prereg(sealed).text).design, claims);
        if (!difference.empty()) throw UsageError(difference);
      }
    }
    file = std::make_unique<ResultsFile>(options.file);
  });
  measure_stage(runtime, file.get());
  complete_results(file, options.file, "measured");
  return 0;
}

}  // namespace

void add_measure_command(CLI::App& root, CommandList& commands) {
  add_command<MeasureOptions>(
      root, commands, "measure",
      "Study stage 3: randomized interleaved rounds of every TP-k cell, its anchors and the same-node control "
      "(needs a registration; rounds and budget as sealed)",
      [](CLI::App& app, MeasureOptions& options) {
        app.add_option("FILE", options.file, "Calibrated and registered results file")->required();
        add_design_claim_flags(app, options.claims);
      },
      run_measure);
}

}  // namespace tpb
