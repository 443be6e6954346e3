#pragma once
// The whole of a file, for inputs read at once: config and campaign files, the
// kernel's /proc and cgroup files.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tpb {

// The file's bytes; nullopt when it cannot be opened.
inline std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tpb
