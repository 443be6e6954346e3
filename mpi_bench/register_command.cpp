// mpi_bench register: seals the predictions of a calibrated results file.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "results/study_file.hpp"

namespace tpb {
namespace {

struct RegisterOptions {
  std::string file;                // FILE.h5 from calibrate
  std::string kill_switch = default_kill_switch_text();  // --kill-switch PCT
  std::string predictions_dir;     // -d DIR; empty: next to FILE.h5
  std::string transfer_from;       // --transfer-from A.h5; empty: no `transfer` form
  std::vector<std::string> forms;  // --form NAME=FILE, repeatable
};

// The --form files read against the grid FILE declares, FILE opened read-only:
// a refused form leaves FILE as it was.
std::vector<OutsideForm> read_register_forms(const RegisterOptions& options) {
  if (options.forms.empty()) return {};
  Workload workload;
  Grid grid;
  read_study_declaration(H5File(options.file, H5Mode::read_only), &workload, &grid);
  return read_outside_forms(options.forms, grid);
}

int run_register(const RegisterOptions& options, const Invocation&) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PreregRecord record;
  std::string dir = options.predictions_dir;
  validate_collectively(MPI_COMM_WORLD, [&] {
    const double kill_switch = parse_kill_switch(options.kill_switch);
    if (rank != 0) return;
    const std::vector<OutsideForm> forms = read_register_forms(options);
    if (dir.empty()) dir = std::filesystem::absolute(options.file).parent_path().string();
    ResultsFile file(options.file);
    record = register_stage(file.h5(), kill_switch, dir, options.transfer_from, {}, forms);
    file.mark_complete();
  });
  if (rank == 0) {
    fmt::print("# registered {} at {}\n# sha256 {}\n# predictions: {}/predictions.json\n", options.file,
               record.registered_at, record.sha256, dir);
    if (const std::string plan = planned_rounds_line(record); !plan.empty()) fmt::print("# {}\n", plan);
  }
  return 0;
}

}  // namespace

void add_register_command(CLI::App& root, CommandList& commands) {
  add_command<RegisterOptions>(
      root, commands, "register",
      "Study stage 2: write predictions.json from calibration data, sealed with SHA-256, into /prereg",
      [](CLI::App& app, RegisterOptions& options) {
        app.add_option("FILE", options.file, "Calibrated results file")->required();
        app.add_option("--kill-switch", options.kill_switch, "MAPE threshold in percent for every form")
            ->capture_default_str();
        app.add_option("-d,--predictions-dir", options.predictions_dir,
                       "Where predictions.json goes (default: next to FILE)");
        app.add_option("--transfer-from", options.transfer_from,
                       "Another model's calibrated study (same machine): register the `transfer` form, priced by "
                       "its fitted per-phase costs");
        add_outside_form_option(app, options.forms);
      },
      run_register);
}

}  // namespace tpb
