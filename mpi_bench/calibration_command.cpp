// mpi_bench calibration FILE.h5 [-o PATH]: a calibrated study's calibration as
// one JSON document (docs/CALIBRATION.md), for a latency model outside
// tpbench to calibrate on before it predicts. Reads FILE only; rank 0 works.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>

#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/lock_wait_option.hpp"
#include "mpi_bench/pipeline/calibration_document.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "results/file_lock.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

struct CalibrationOptions {
  std::string file;    // FILE.h5, calibrated
  std::string output;  // -o PATH; stdout when empty
  double lock_wait_s = kDefaultLockWaitSeconds;
};

// FILE opened read-only as a tpbench results file of the schema this tpbench reads.
H5File open_study_file(const std::string& path, double lock_wait_s) {
  wait_for_file_lock(path, lock_wait_s);
  H5File file = open_input_file(path, "FILE");
  if (!file.exists(kMetaGroup))
    throw UsageError(fmt::format("FILE: '{}' is not a tpbench results file (no {})", path, kMetaGroup));
  const H5Handle meta = file.open_object(kMetaGroup);
  const std::int64_t version = read_integer_attribute(meta.id(), "schema_version");
  if (!readable_schema_version(version))
    throw UsageError(fmt::format("FILE: '{}': {}", path, unreadable_schema_message(version)));
  return file;
}

int run_calibration(const CalibrationOptions& options, const Invocation&) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string text;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (rank != 0) return;
    const H5File file = open_study_file(options.file, options.lock_wait_s);
    // Text from the host (a CPU model) that is not UTF-8 is replaced, never fatal.
    text = calibration_document(file).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    if (!options.output.empty()) write_text_file(options.output, text);
  });
  if (rank != 0) return 0;
  if (options.output.empty())
    std::fwrite(text.data(), 1, text.size(), stdout);
  else
    fmt::print("# calibration: {}\n", options.output);
  return 0;
}

}  // namespace

void add_calibration_command(CLI::App& root, CommandList& commands) {
  add_command<CalibrationOptions>(
      root, commands, "calibration",
      "A calibrated study's calibration as JSON (docs/CALIBRATION.md): machine, model, grid, bandwidths, sweep "
      "fits, and per cell the anchors, phase timings and phase ledger. Reads FILE only",
      [](CLI::App& app, CalibrationOptions& options) {
        app.add_option("FILE", options.file, "Calibrated study results file (.h5); opened read-only")->required();
        app.add_option("-o,--output", options.output,
                       "Write the document to PATH (whole, through a temporary file) instead of stdout");
        add_lock_wait_option(app, options.lock_wait_s);
      },
      run_calibration);
}

}  // namespace tpb
