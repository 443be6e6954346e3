#pragma once
// This process's resident memory, from /proc/self/status: VmRSS (resident
// now) and VmHWM (peak resident), in bytes. Throws when the line is absent.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpb::test {

inline std::uint64_t status_field_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field, 0) != 0) continue;
    std::istringstream in(line.substr(field.size()));
    std::uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  throw std::runtime_error("/proc/self/status has no readable " + field + " line");
}

inline std::uint64_t resident_bytes() { return status_field_bytes("VmRSS:"); }
inline std::uint64_t peak_resident_bytes() { return status_field_bytes("VmHWM:"); }

}  // namespace tpb::test
