#pragma once
// Every subcommand's registration function, one per source file.
#include "mpi_bench/command.hpp"

namespace tpb {

void add_info_command(CLI::App& root, CommandList& commands);  // info_command.cpp
void add_verify_command(CLI::App& root, CommandList& commands);  // verify_command.cpp
void add_sweep_command(CLI::App& root, CommandList& commands);  // sweep_command.cpp

}  // namespace tpb
