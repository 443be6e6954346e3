#pragma once
// The flags that declare a study (calibrate and run share them), kept as
// text until every rank parses them into a StudyDeclaration.
#include <CLI/CLI.hpp>

#include <string>

#include "mpi_bench/pipeline/study_runtime.hpp"

namespace tpb {

struct StudyFlags {
  std::string model;             // --model CONFIG.json
  std::string tp = "1,2";        // --tp LIST
  std::string batch = "1";       // --batch LIST
  std::string context = "128";   // --context LIST
  std::string backend;           // --backend cpu|cuda; empty: cuda when a GPU is visible, else cpu
  std::string layers = "0";      // --layers N; 0: the config's count
  std::string warmup = "3";      // -w
  std::string iters = "20";      // -n
  std::string sweep_iters = "20";
  std::string seed = "20240";    // bootstrap seed
};

void add_study_flags(CLI::App* app, StudyFlags& flags);

// UsageError naming the flag and the bad value.
StudyDeclaration parse_study_flags(const StudyFlags& flags);

// --kill-switch PCT as a number; UsageError otherwise.
double parse_kill_switch(const std::string& text);

}  // namespace tpb
