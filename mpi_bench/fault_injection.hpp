#pragma once
// Test hook: makes one rank fail on purpose so the reliability tests can
// check what a real failure leaves behind. Never set it in production runs.
//
//   TPB_FAULT=RANK:STAGE:KIND[:N]
//     RANK   world rank that fails
//     STAGE  stage name as passed to report_progress ("sweep", "step", ...)
//     KIND   stall  stop reporting progress and sleep (the watchdog must end the job)
//            throw  throw tpb::Error, as a failing library call would
//            kill   SIGKILL this rank, as the OOM killer or a node failure would
//     N      fire at this rank's N-th progress report of STAGE (default 1),
//            so N-1 points of the stage finish first
//
// The variable is read in exactly one place (FaultInjector::from_environment,
// called by the Watchdog) and acted on in exactly one place (report_progress).
#include <optional>
#include <string>
#include <string_view>

namespace tpb {

inline constexpr const char* kFaultVariable = "TPB_FAULT";

enum class FaultKind { stall, throw_error, kill };

struct FaultSpec {
  int rank = 0;
  std::string stage;
  FaultKind kind = FaultKind::throw_error;
  long long at_report = 1;
  std::string text;  // as given, for messages
};

// Parses RANK:STAGE:KIND[:N]; UsageError naming TPB_FAULT on anything else.
FaultSpec parse_fault_spec(std::string_view text);

class FaultInjector {
 public:
  FaultInjector() = default;  // injects nothing
  FaultInjector(std::optional<FaultSpec> spec, int rank);
  static FaultInjector from_environment(int rank);

  // Counts reports of `stage` and fires the fault on the configured one.
  // stall never returns; kill does not either; throw_error throws tpb::Error.
  void on_progress(std::string_view stage);

 private:
  std::optional<FaultSpec> spec_;  // empty unless it targets this rank
  long long reports_ = 0;
};

}  // namespace tpb
