#pragma once
// The study's collective ablation (`run --ablate-collective IMPL`): after the
// study's own verdict, TP-k runs again with another collective
// implementation, predicted from that implementation's own sweeps by the same
// forms. Everything it writes lies below ablation_root_path(IMPL), so the
// study's own groups are never overwritten.
//   sweeps:   IMPL's all-reduce and all-gather sweeps for every k > 1
//   register: the study's registration with those sweeps in place of its own
//             collective's (same compute and host terms, same forms and kill
//             switches), sealed with SHA-256 before any ablation step
//   measure:  the TP-k steps of every k > 1 on IMPL's groups
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"
#include "results/results_file.hpp"

namespace tpb {

// Collective, after the study's runtime has started (its dry run too):
// UsageError on every rank where `collective` cannot run this study's groups
// (a one-shot group spanning nodes, NCCL without a GPU backend, a
// communicator this build lacks), or where the ablation's steps with
// `collective`'s buffers would not fit this rank's memory.
void check_ablation_collective(const StudyRuntime& runtime, CollectiveKind collective);

// Collective. `file` is non-null on world rank 0 only; the study's
// registration and measurement are already on it. Writes
// predictions_{IMPL}.json (and its .sha256) into `predictions_dir`.
void ablation_stage(StudyRuntime& runtime, ResultsFile* file, CollectiveKind collective,
                    const std::string& predictions_dir);

}  // namespace tpb
