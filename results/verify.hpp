#pragma once
// Integrity check of a results file before anyone reads numbers out of it:
// schema version, /meta provenance, every dataset readable, timings finite,
// per-point shapes consistent with the rank groups, the pre-registration seal,
// and the complete flag. `mpi_bench verify`, `report` and `verdict` use it.
#include <cstdint>
#include <string>
#include <vector>

namespace tpb {

enum class ProblemKind {
  unreadable,    // not HDF5, truncated, wrong schema or no /meta: nothing can be trusted
  inconsistent,  // a dataset or attribute missing, mis-shaped, non-finite, or a broken seal
  incomplete,    // complete=0: the run did not finish (killed, failed or still running)
};

struct VerifyProblem {
  ProblemKind kind;
  std::string message;  // one line, names the object and what was expected
};

struct VerifyResult {
  std::string path;
  std::int64_t schema_version = 0;
  bool complete = false;
  std::int64_t datasets_checked = 0;
  std::vector<VerifyProblem> problems;  // in the order found; empty means valid

  bool ok() const { return problems.empty(); }
  // False when a caller that passed --allow-incomplete may still read the
  // file: it opens and has a valid /meta, whatever else is wrong with it.
  bool unreadable() const;
  // "FILE: ok (N datasets)" or "FILE: <first problem>"
  std::string summary() const;
};

// Never throws for a bad file: every problem is reported in the result.
// Throws UsageError only when `path` does not exist.
VerifyResult verify_results_file(const std::string& path);

// For report and verdict: verifies `path` and throws UsageError with the
// first problem unless the file is valid, or allow_incomplete is set and the
// file is readable. Returns the result so the caller can label its output
// (see incomplete_banner).
VerifyResult require_verified_results(const std::string& path, bool allow_incomplete);

// First line for a report built from a file that did not verify:
// "> WARNING: built with --allow-incomplete from FILE: <first problem>"
std::string incomplete_banner(const VerifyResult& result);

// Puts incomplete_banner(result) on the first line of the Markdown file at
// `markdown_path` when the results it was built from did not verify.
void label_unverified_report(const std::string& markdown_path, const VerifyResult& result);

}  // namespace tpb
