#pragma once
// The two flags that turn a study into a deployment decision, declared by
// calibrate and run and sealed in the registration:
//   --tpot-slo MS     the TPOT objective: the decision names the k serving the
//                     most tokens/s per device within it
//   --predict-tp LIST degrees not measured (e.g. 4,8 on 2 ranks): calibration
//                     replays their shard shapes on one rank, and the decision
//                     gives MODELLED figures for them
#include <CLI/CLI.hpp>

#include <string>

#include "predictor/registration.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

struct DecisionFlags {
  std::string tpot_slo;    // --tpot-slo MS; empty: none
  std::string predict_tp;  // --predict-tp LIST; empty: none
};

void add_decision_flags(CLI::App& app, DecisionFlags& flags);

// UsageError naming the flag and the value: an SLO that is not a positive
// finite number of milliseconds; a degree list that does not parse, or that
// names a degree the grid (`measured_tp`) measures.
DecisionDeclaration parse_decision_flags(const DecisionFlags& flags, const std::vector<int>& measured_tp);

// UsageError when the model cannot be split over a predicted degree.
void check_predicted_degrees(const ModelConfig& config, const DecisionDeclaration& declaration);

}  // namespace tpb
