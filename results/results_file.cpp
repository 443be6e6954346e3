#include "results/results_file.hpp"

#include "common/clock.hpp"
#include "tpb_version.hpp"

namespace tpb {

ResultsFile::ResultsFile(const std::string& path, bool overwrite, const RunMeta& meta)
    : file_(path, overwrite ? H5Mode::create_overwrite : H5Mode::create_new) {
  H5Handle group = file_.group(kMetaGroup);
  const hid_t id = group.id();
  write_attributes(id, {{"schema_version", kSchemaVersion}, {"tool_version", std::string(TPB_TOOL_VERSION)},
                        {"git_sha", std::string(TPB_GIT_SHA)}, {"command_line", meta.command_line},
                        {"started_at", meta.started_at}, {"finished_at", std::string{}},
                        {"hostnames", meta.hostnames}, {"rank_map", meta.rank_map}});
  for (const auto& [name, version] : meta.versions) write_attribute(id, name, version);
  write_attribute(id, "environment", meta.environment);
  for (const auto& [name, value] : meta.job) write_attribute(id, name, value);
  write_attribute(id, "complete", std::int64_t{0});
  file_.flush();
}

ResultsFile::ResultsFile(const std::string& path) : file_(path, H5Mode::read_write) {
  H5Handle group = file_.group(kMetaGroup);
  write_attribute(group.id(), "complete", std::int64_t{0});
  file_.flush();
}

void ResultsFile::mark_complete() {
  H5Handle group = file_.group(kMetaGroup);
  write_attribute(group.id(), "finished_at", iso8601_utc_now());
  file_.flush();
  // Last, and flushed on its own: complete=1 is never on disk before the data.
  write_attribute(group.id(), "complete", std::int64_t{1});
  file_.flush();
}

bool results_file_complete(const H5File& file) {
  if (!file.exists("/meta")) return false;
  H5Handle meta = file.open_object("/meta");
  return has_attribute(meta.id(), "complete") && read_integer_attribute(meta.id(), "complete") == 1;
}

}  // namespace tpb
