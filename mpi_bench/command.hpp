#pragma once
// A subcommand of mpi_bench: its CLI11 parser (with its own Options struct
// bound to it) and what runs when it is chosen.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
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

// Adds subcommand `name` to `root`: its Options live as long as the parser,
// `declare(app, options)` binds them to flags, and `run(options, invocation)`
// runs the command with them.
template <typename Options, typename Declare, typename Run>
void add_command(CLI::App& root, CommandList& commands, const char* name, const char* description, Declare declare,
                 Run run) {
  auto options = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(name, description);
  declare(*app, *options);
  commands.push_back({app, [options, run](const Invocation& invocation) { return run(*options, invocation); }});
}

}  // namespace tpb
