#pragma once
// The whole study once its results file is open, as `run` does it and the
// pipeline test checks it: calibrate, register (saying the round plan before
// measuring), measure, the ablation when asked, the verdict and the decision;
// then the file is marked complete.
#include <optional>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"

namespace tpb {

struct StudyRunChoices {
  double kill_switch_pct = 0;
  std::string out_dir;          // predictions.json (and the ablation's) land here
  std::string transfer_from;    // register --transfer-from; empty for none
  std::string campaign_sha256;  // a campaign's launch; empty for none
  std::optional<CollectiveKind> ablation;  // --ablate-collective
  std::vector<OutsideForm> outside_forms;  // --form, read before calibration
};

// Collective. `file` is non-null on world rank 0 only. Returns rank 0's
// verdict; an empty one on the other ranks.
StudyVerdict run_study(StudyRuntime& runtime, ResultsFile* file, const StudyRunChoices& choices);

}  // namespace tpb
