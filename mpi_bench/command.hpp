#pragma once
// A subcommand of mpi_bench: its CLI11 parser (with its own Options struct
// bound to it) and what runs when it is chosen.
#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace tpb {

struct Invocation {
  int argc;
  char** argv;  // as given, for provenance
};

struct Command {
  CLI::App* app;
  std::function<int(const Invocation&)> run;  // returns the process exit code
};

// One function per subcommand adds it to the root parser; see main.cpp.
using CommandList = std::vector<Command>;

}  // namespace tpb
