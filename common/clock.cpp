#include "common/clock.hpp"

#include <fmt/chrono.h>

#include <ctime>

namespace tpb {

std::string iso8601_utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

}  // namespace tpb
