#pragma once
// The flags that declare a study (calibrate and run share them): the grid and
// timing options every step-running command shares, plus the calibration
// sweep length and the bootstrap seed. Kept as typed until every rank parses
// them into a StudyDeclaration.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "mpi_bench/grid_options.hpp"
#include "mpi_bench/pipeline/decision_options.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"
#include "predictor/study_design.hpp"

namespace tpb {

struct StudyFlags {
  GridOptions grid = study_grid_defaults();
  int sweep_iters = 20;           // --sweep-iters
  int calibration_rounds = 10;    // --calibration-rounds: the round plan reads their spread (9 degrees of freedom)
  long long seed = 20240;         // --seed: bootstrap seed and the rounds' visiting order
  std::string rounds = std::to_string(kDefaultRounds);  // --rounds N
  long long time_budget_s = 0;    // --time-budget SECONDS: a guard (0: none)
  DecisionFlags decision;          // --tpot-slo, --predict-tp

  // A study compares TP-1 with TP-2 by default. Its intervals come from the
  // rounds, so one timed step per visit is enough: the noise of a shared node
  // is as large over one step as over many, and short visits buy more rounds.
  static GridOptions study_grid_defaults() {
    GridOptions g;
    g.choice.grid.tp = {1, 2};
    return g;
  }
};

void add_study_flags(CLI::App* app, StudyFlags& flags);

// UsageError naming the flag and the bad value.
StudyDeclaration parse_study_flags(const StudyFlags& flags);

// The design flags a later command (measure, verdict) may repeat: each one
// given, as typed, becomes a claim the sealed registration must match.
struct DesignClaimFlags {
  std::string kill_switch, rounds, time_budget, seed, alpha;
};
DesignClaims parse_design_claims(const DesignClaimFlags& flags);  // UsageError naming a bad value
// The claim flags, declared once for every command that takes them.
void add_design_claim_flags(CLI::App& app, DesignClaimFlags& flags);

// --form NAME=FILE, repeatable (register, run, campaign init): the typed
// arguments, read into outside forms (predictor/outside_form.hpp) by
// read_outside_forms once the grid is known, before any calibration.
void add_outside_form_option(CLI::App& app, std::vector<std::string>& name_equals_files);

// --kill-switch PCT as a number; UsageError otherwise.
double parse_kill_switch(const std::string& text);
// kDefaultKillSwitchPct as --kill-switch spells it ("15").
std::string default_kill_switch_text();

}  // namespace tpb
