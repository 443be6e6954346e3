#pragma once
// When a study stops measuring: cells are judged only at the sealed
// checkpoints (the α split counts them), and the study stops at the first
// checkpoint where every cell is decided, or at the last one.
#include <span>

#include "predictor/cell_verdict.hpp"

namespace tpb {

// HOLDS, FALSIFIED and NOT_APPLICABLE are decided; INCONCLUSIVE is not.
bool is_decided(Outcome outcome);

// True when `rounds_done` is one of the rule's checkpoints.
bool is_checkpoint(const DecisionRule& rule, int rounds_done);

// At a checkpoint: stop when every verdict is decided or the last checkpoint
// (the registered maximum) is reached. Between checkpoints: never.
bool should_stop(const DecisionRule& rule, int rounds_done, std::span<const CellVerdict> verdicts);

}  // namespace tpb
