#pragma once
// A tpbench results file: /meta provenance written first with complete=0,
// data appended and flushed point by point by the stages, complete=1 last.
#include <string>
#include <utility>
#include <vector>

#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {


struct RunMeta {
  std::string command_line;
  std::string started_at;                                      // ISO-8601 UTC
  std::vector<std::string> hostnames;                          // distinct nodes, in rank order
  std::vector<std::string> rank_map;                           // one JSON object per rank
  std::vector<std::pair<std::string, std::string>> versions;   // attribute name -> version text
  std::vector<std::string> environment;                        // "NAME=value" for timing knobs
  std::vector<std::pair<std::string, std::string>> job;        // scheduler facts (slurm_job_id, ...)
};

class ResultsFile {
 public:
  // Creates the file and writes /meta with complete=0. Refuses an existing
  // file unless `overwrite` (UsageError naming the path).
  ResultsFile(const std::string& path, bool overwrite, const RunMeta& meta);
  // Opens an existing file to add a stage's results (complete is reset to 0
  // until this stage calls mark_complete()).
  explicit ResultsFile(const std::string& path);

  H5File& h5() { return file_; }
  void flush() { file_.flush(); }
  // Writes finished_at and complete=1, then flushes. Call only when every
  // point of the run has been written.
  void mark_complete();

 private:
  H5File file_;
};

bool results_file_complete(const H5File& file);

}  // namespace tpb
