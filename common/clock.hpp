#pragma once
// Wall-clock helpers for provenance (not for timing measurements).
#include <string>

namespace tpb {
// "2026-11-30T04:15:00Z"
std::string iso8601_utc_now();
}  // namespace tpb
