#include "common/error.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace tpb {
namespace {
// Filled by the rank bootstrap; -1/"?" until then (e.g. errors before MPI_Init).
int g_rank = -1;
std::string g_host = "?";
}  // namespace

Error::Error(std::string library, long long code, std::string message, std::string file, int line)
    : std::runtime_error(message),
      library_(std::move(library)),
      code_(code),
      file_(std::filesystem::path(file).filename().string()),
      line_(line),
      rank_(g_rank),
      host_(g_host) {}

std::string Error::one_line() const {
  std::string where = file_.empty() ? std::string{} : fmt::format(" at {}:{}", file_, line_);
  return fmt::format("tpbench: error: [rank {} on {}] {} {}: {}{}", rank_, host_, library_, code_, what(), where);
}

void set_error_context(int rank, const std::string& host) {
  g_rank = rank;
  g_host = host;
}

void throw_error(const char* library, long long code, const std::string& message, const char* file, int line) {
  throw Error(library, code, message, file, line);
}

}  // namespace tpb
