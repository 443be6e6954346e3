#include "mpi_bench/fault_injection.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <limits>
#include <thread>

#include "common/error.hpp"
#include "common/parse.hpp"

namespace tpb {
namespace {

std::string_view next_field(std::string_view& rest) {
  const auto colon = rest.find(':');
  const std::string_view field = rest.substr(0, colon);
  rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  return field;
}

}  // namespace

FaultSpec parse_fault_spec(std::string_view text) {
  const auto bad = [&] {
    return UsageError(fmt::format("{}: invalid value '{}' (expected RANK:STAGE:stall|throw|kill[:N])",
                                  kFaultVariable, text));
  };
  std::string_view rest = text;
  const std::string_view rank = next_field(rest);
  const std::string_view stage = next_field(rest);
  const std::string_view kind = next_field(rest);
  const std::string_view count = rest;
  if (rank.empty() || stage.empty() || kind.empty() || count.find(':') != std::string_view::npos ||
      text.back() == ':')
    throw bad();

  FaultSpec spec;
  long long rank_number = 0;
  try {
    rank_number = parse_integer(kFaultVariable, rank, 0);
    if (!count.empty()) spec.at_report = parse_integer(kFaultVariable, count, 1);
  } catch (const UsageError&) {
    throw bad();
  }
  if (rank_number > std::numeric_limits<int>::max()) throw bad();
  spec.rank = static_cast<int>(rank_number);
  spec.stage = std::string(stage);
  spec.text = std::string(text);
  if (kind == "stall") spec.kind = FaultKind::stall;
  else if (kind == "throw") spec.kind = FaultKind::throw_error;
  else if (kind == "kill") spec.kind = FaultKind::kill;
  else throw bad();
  return spec;
}

FaultInjector::FaultInjector(std::optional<FaultSpec> spec, int rank) {
  if (spec && spec->rank == rank) spec_ = std::move(spec);
}

FaultInjector FaultInjector::from_environment(int rank) {
  const char* text = std::getenv(kFaultVariable);
  if (text == nullptr || *text == '\0') return FaultInjector{};
  return FaultInjector(parse_fault_spec(text), rank);
}

void FaultInjector::on_progress(std::string_view stage) {
  if (!spec_ || stage != spec_->stage || ++reports_ != spec_->at_report) return;
  switch (spec_->kind) {
    case FaultKind::stall:
      // Alive but silent, like a rank stuck in a driver call: only the
      // watchdog (or the scheduler) ends this.
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    case FaultKind::kill:
      std::raise(SIGKILL);
      break;
    case FaultKind::throw_error:
      throw_error("tpbench", 1, fmt::format("injected fault {}={}", kFaultVariable, spec_->text), __FILE__, __LINE__);
  }
}

}  // namespace tpb
