#pragma once
// The measurement of a study, in randomized interleaved rounds. Every round
// visits each condition of round_conditions() once (TP-k cells, their
// --no-comm ablation, the anchors t_compute(1) and t_replay(k); TP-1 is also
// the same-node control), in an order drawn by Fisher–Yates from the sealed
// seed. TP-1 on each rank alone runs once before the first round.
// A fixed design: the study runs its sealed N rounds, and only the time
// budget, a guard, ends it earlier (it then records why in /rounds).
#include <vector>

#include "mpi_bench/pipeline/study_runtime.hpp"
#include "predictor/registration.hpp"

namespace tpb {

// Collective. `file` and `registration` are non-null on world rank 0 only;
// the registration carries the design.
void run_study_rounds(StudyRuntime& runtime, ResultsFile* file, const Registration* registration);

// The TP degrees of the groups the rounds hold at once, ascending: 1 (the
// anchors, the control and each rank alone) and every k of `grid_tp`.
std::vector<int> round_group_degrees(const std::vector<int>& grid_tp);

}  // namespace tpb
