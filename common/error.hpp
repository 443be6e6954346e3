#pragma once
// One typed error for every library tpbench calls (MPI, CUDA, cuBLAS, NCCL,
// HDF5, BLAS) and for tpbench's own checks. mpi_bench's main() catches it,
// prints error.one_line() from the failing rank and ends the job.
#include <stdexcept>
#include <string>

namespace tpb {

// Exit codes shared by every subcommand.
inline constexpr int kExitUsage = 2;    // bad input: nothing was run, no file touched
inline constexpr int kExitRuntime = 3;  // a library or check failed mid-run
inline constexpr int kExitTimeout = 4;  // the watchdog ended a stuck stage

class Error : public std::runtime_error {
 public:
  Error(std::string library, long long code, std::string message, std::string file = {}, int line = 0);

  const std::string& library() const { return library_; }
  long long code() const { return code_; }
  std::string message() const { return what(); }
  int rank() const { return rank_; }
  // "tpbench: error: [rank 3 on node7] NCCL 2 (unhandled system error) at file.cu:42"
  std::string one_line() const;

 private:
  std::string library_;
  long long code_;
  std::string file_;
  int line_;
  int rank_;
  std::string host_;
};

// Bad user input (flags, config files, paths). Caught in main: exit code 2,
// printed once by rank 0 since every rank parses the same input.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// Set once by the rank bootstrap so every error names where it happened.
void set_error_context(int rank, const std::string& host);

[[noreturn]] void throw_error(const char* library, long long code, const std::string& message, const char* file,
                              int line);

}  // namespace tpb

// A tpbench invariant that does not hold (not a library failure).
#define TPB_CHECK(cond, msg)                                        \
  do {                                                              \
    if (!(cond)) ::tpb::throw_error("tpbench", 1, (msg), __FILE__, __LINE__); \
  } while (0)
