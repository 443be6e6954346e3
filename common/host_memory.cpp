#include "common/host_memory.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "common/read_file.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

// cgroup v1 writes "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712
// on 4 KiB pages); v2 writes "max". Anything this large is no limit.
constexpr std::uint64_t kNoLimitFrom = 1ULL << 62;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo.
std::string unescape_octal(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '\\' && i + 3 < path.size()) {
      const std::string digits = path.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out.push_back(static_cast<char>(std::stoi(digits, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(path[i]);
  }
  return out;
}

// A limit file's value; nullopt for "max", the v1 no-limit value, or anything unreadable.
std::optional<std::uint64_t> read_limit(const fs::path& file) {
  std::istringstream in(read_file(file).value_or(""));
  std::string word;
  if (!(in >> word)) return std::nullopt;
  const std::optional<std::uint64_t> value = whole_number<std::uint64_t>(word);
  if (!value || *value >= kNoLimitFrom) return std::nullopt;
  return value;
}

struct CgroupMount {
  int version = 1;
  std::string root;         // the hierarchy's path that is mounted (mountinfo field 4)
  std::string mount_point;  // where (field 5)
};

std::vector<CgroupMount> cgroup_mounts(const std::string& mountinfo) {
  std::vector<CgroupMount> mounts;
  for (const std::string& line : split(mountinfo, '\n')) {
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string field; in >> field;) fields.push_back(field);
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 5 || dash == fields.end() || dash + 3 > fields.end()) continue;
    const std::string& type = *(dash + 1);
    const std::string& super_options = *(dash + 3);
    CgroupMount mount{0, unescape_octal(fields[3]), unescape_octal(fields[4])};
    if (type == "cgroup2") {
      mount.version = 2;
    } else if (type == "cgroup") {
      const std::vector<std::string> options = split(super_options, ',');
      if (std::find(options.begin(), options.end(), "memory") == options.end()) continue;
      mount.version = 1;
    } else {
      continue;
    }
    mounts.push_back(mount);
  }
  return mounts;
}

// The tightest limit from `cgroup_path`'s directory up to the mount point.
void tightest_on_path(const CgroupMount& mount, const std::string& cgroup_path,
                      std::optional<CgroupMemoryLimit>& tightest) {
  // The mounted root is a prefix of the process's path (or the process's
  // path is relative to a cgroup namespace's root, already the mount's).
  std::string relative = cgroup_path;
  if (mount.root != "/" && relative.rfind(mount.root, 0) == 0) relative = relative.substr(mount.root.size());
  const fs::path top(mount.mount_point);
  const fs::path below = fs::path(relative).relative_path();
  fs::path dir = below.empty() ? top : top / below;
  std::error_code error;
  if (!fs::is_directory(dir, error)) dir = top;  // a path this mount namespace cannot see: the mount's own level
  const char* name = mount.version == 1 ? "memory.limit_in_bytes" : "memory.max";
  for (fs::path level = dir;; level = level.parent_path()) {
    if (const std::optional<std::uint64_t> limit = read_limit(level / name))
      if (!tightest || *limit < tightest->bytes) tightest = CgroupMemoryLimit{*limit, (level / name).string(), mount.version};
    if (level == top || !level.has_relative_path() || level.parent_path() == level) break;
  }
}

}  // namespace

std::uint64_t HostMemory::usable_bytes() const {
  return cgroup_limit ? std::min(mem_available_bytes, cgroup_limit->bytes) : mem_available_bytes;
}

std::uint64_t parse_mem_available(const std::string& meminfo_text) {
  for (const std::string& line : split(meminfo_text, '\n')) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream in(line.substr(13));
    std::uint64_t kib = 0;
    std::string unit;
    if (in >> kib >> unit && unit == "kB") return kib * 1024;
  }
  throw_error("tpbench", 1, "/proc/meminfo has no readable 'MemAvailable: N kB' line", __FILE__, __LINE__);
}

std::optional<CgroupMemoryLimit> cgroup_memory_limit(const std::string& proc_self_cgroup,
                                                     const std::string& mountinfo) {
  const std::vector<CgroupMount> mounts = cgroup_mounts(mountinfo);
  std::optional<CgroupMemoryLimit> tightest;
  for (const std::string& line : split(proc_self_cgroup, '\n')) {
    // "hierarchy-id:controllers:path"; v2 is "0::path".
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? std::string::npos : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    const std::vector<std::string> names = split(controllers, ',');
    const bool v1_memory = std::find(names.begin(), names.end(), "memory") != names.end();
    const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
    for (const CgroupMount& mount : mounts)
      if ((v1_memory && mount.version == 1) || (v2 && mount.version == 2)) tightest_on_path(mount, path, tightest);
  }
  return tightest;
}

HostMemory query_host_memory() {
  HostMemory memory;
  memory.mem_available_bytes = parse_mem_available(read_file("/proc/meminfo").value_or(""));
  memory.cgroup_limit =
      cgroup_memory_limit(read_file("/proc/self/cgroup").value_or(""), read_file("/proc/self/mountinfo").value_or(""));
  return memory;
}

}  // namespace tpb
