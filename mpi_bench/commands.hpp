#pragma once
// Every subcommand's registration function, one per source file.
#include "mpi_bench/command.hpp"

namespace tpb {

void add_info_command(CLI::App& root, CommandList& commands);  // info_command.cpp
void add_sweep_command(CLI::App& root, CommandList& commands);  // sweep_command.cpp
void add_step_command(CLI::App& root, CommandList& commands);  // step_command.cpp
void add_replay_command(CLI::App& root, CommandList& commands);  // replay_command.cpp
void add_membw_command(CLI::App& root, CommandList& commands);  // membw_command.cpp
void add_d2d_command(CLI::App& root, CommandList& commands);  // d2d_command.cpp
void add_verify_command(CLI::App& root, CommandList& commands);  // verify_command.cpp
void add_kv_command(CLI::App& root, CommandList& commands);  // kv_command.cpp
void add_calibration_command(CLI::App& root, CommandList& commands);  // calibration_command.cpp

void add_calibrate_command(CLI::App& root, CommandList& commands);  // calibrate_command.cpp
void add_register_command(CLI::App& root, CommandList& commands);  // register_command.cpp
void add_measure_command(CLI::App& root, CommandList& commands);  // measure_command.cpp
void add_verdict_command(CLI::App& root, CommandList& commands);  // verdict_command.cpp
void add_report_command(CLI::App& root, CommandList& commands);  // report_command.cpp
void add_run_command(CLI::App& root, CommandList& commands);  // run_command.cpp
void add_campaign_command(CLI::App& root, CommandList& commands);  // campaign_command.cpp

}  // namespace tpb
