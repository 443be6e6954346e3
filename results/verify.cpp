#include "results/verify.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <iterator>
#include <regex>

#include "common/error.hpp"
#include "results/custody.hpp"
#include "results/h5_check.hpp"
#include "results/layout.hpp"
#include "results/results_file.hpp"

namespace tpb {
namespace {

// /meta attributes every results file carries (results_file.cpp writes them).
constexpr const char* kRequiredMeta[] = {"schema_version", "tool_version", "git_sha",  "command_line", "started_at",
                                         "finished_at",    "hostnames",    "rank_map", "complete"};

// Quantities that are measured times or rates: NaN or Inf there means a
// failed measurement recorded as if it were one.
bool is_measured_quantity(const std::string& path) { return path.ends_with("_us") || path.ends_with("_GBps"); }

class Checker {
 public:
  Checker(const H5File& file, VerifyResult& result) : file_(file), result_(result) {}

  void problem(ProblemKind kind, std::string message) { result_.problems.push_back({kind, std::move(message)}); }

  // Returns false when the file cannot be interpreted at all.
  bool check_meta() {
    if (!file_.exists(kMetaGroup)) {
      problem(ProblemKind::unreadable, "no /meta group: not a tpbench results file");
      return false;
    }
    H5Handle meta = file_.open_object(kMetaGroup);
    if (!has_attribute(meta.id(), "schema_version")) {
      problem(ProblemKind::unreadable, "/meta has no schema_version attribute");
      return false;
    }
    result_.schema_version = read_integer_attribute(meta.id(), "schema_version");
    if (!readable_schema_version(result_.schema_version)) {
      problem(ProblemKind::unreadable, unreadable_schema_message(result_.schema_version));
      return false;
    }
    for (const char* name : kRequiredMeta)
      if (!has_attribute(meta.id(), name))
        problem(ProblemKind::inconsistent, fmt::format("/meta has no {} attribute", name));
    if (!has_attribute(meta.id(), "rank_map") || !has_attribute(meta.id(), "complete")) return true;
    world_size_ = static_cast<int>(read_string_list_attribute(meta.id(), "rank_map").size());
    if (world_size_ < 1) problem(ProblemKind::inconsistent, "/meta rank_map is empty");
    result_.complete = read_integer_attribute(meta.id(), "complete") == 1;
    if (result_.complete && read_string_attribute(meta.id(), "finished_at").empty())
      problem(ProblemKind::inconsistent, "/meta complete=1 but finished_at is empty");
    return true;
  }

  // Reads every dataset in full: a truncated or corrupted file fails here
  // rather than in the middle of a report.
  void check_datasets() {
    const herr_t visited = H5Lvisit(file_.id(), H5_INDEX_NAME, H5_ITER_INC, &Checker::visit, this);
    if (visit_failure_) std::rethrow_exception(visit_failure_);
    H5_CHECK(visited);
  }

  void check_groups_fit_world() {
    static const std::regex group_of_k(R"(^/([a-z_]+)/k([0-9]+)$)");
    for (const auto& path : groups_) {
      std::smatch match;
      if (!std::regex_match(path, match, group_of_k) || world_size_ < 1) continue;
      // A shard replay runs on one rank whatever its k, and the decision models degrees not run.
      if (match[1] == "replay" || match[1] == "decision") continue;
      const int k = std::stoi(match[2].str());
      if (k < 1 || k > world_size_ || world_size_ % k != 0)
        problem(ProblemKind::inconsistent,
                fmt::format("{}: TP degree {} does not divide the {} ranks in /meta rank_map", path, k, world_size_));
    }
  }

  // A sweep group /sweep*/k{K}: one entry per payload size in every dataset,
  // and as many timed samples per size as its `iters` attribute says.
  void check_sweep_groups() {
    static const std::regex sweep_group(R"(^/sweep[a-z_]*/k[0-9]+$)");
    for (const auto& path : groups_) {
      if (!std::regex_match(path, sweep_group)) continue;
      bool complete_group = true;
      for (const char* name : {"bytes", "time_us", "time_median_us", "algbw_GBps", "busbw_GBps"})
        if (!file_.exists(path + "/" + name)) {
          problem(ProblemKind::inconsistent, fmt::format("{}: no {} dataset", path, name));
          complete_group = false;
        }
      if (!complete_group) continue;
      const std::uint64_t sizes = file_.dims(path + "/bytes").at(0);
      for (const auto& name : file_.list(path)) {
        const std::string dataset = path + "/" + name;
        if (!is_dataset(dataset)) continue;
        const auto dims = file_.dims(dataset);
        if (dims.empty() || dims[0] != sizes)
          problem(ProblemKind::inconsistent,
                  fmt::format("{}: {} entries along its first axis, but the sweep has {} sizes", dataset,
                              dims.empty() ? 0 : dims[0], sizes));
      }
      H5Handle group = file_.open_object(path);
      const auto times = file_.dims(path + "/time_us");
      if (has_attribute(group.id(), "iters") && times.size() >= 2 &&
          times[1] != static_cast<std::uint64_t>(read_integer_attribute(group.id(), "iters")))
        problem(ProblemKind::inconsistent,
                fmt::format("{}/time_us: {} samples per size, but the group's iters attribute says {}", path,
                            times[1], read_integer_attribute(group.id(), "iters")));
    }
  }

  // A measured point (a group with tp, batch, context and iters attributes):
  // its name agrees with its attributes, and every per-iteration time holds
  // `iters` rows.
  void check_point_groups() {
    static const std::regex point_group(R"(^/[a-z_]+/k([0-9]+)/b([0-9]+)_c([0-9]+)$)");
    for (const auto& path : groups_) {
      std::smatch match;
      if (!std::regex_match(path, match, point_group)) continue;
      H5Handle group = file_.open_object(path);
      const std::pair<const char*, std::string> named[] = {
          {"tp", match[1].str()}, {"batch", match[2].str()}, {"context", match[3].str()}};
      for (const auto& [attribute, value] : named)
        if (has_attribute(group.id(), attribute) &&
            std::to_string(read_integer_attribute(group.id(), attribute)) != value)
          problem(ProblemKind::inconsistent,
                  fmt::format("{}: attribute {}={} disagrees with the group name", path, attribute,
                              read_integer_attribute(group.id(), attribute)));
      check_point_columns(path);
      if (!has_attribute(group.id(), "iters")) continue;
      const auto iters = static_cast<std::uint64_t>(read_integer_attribute(group.id(), "iters"));
      for (const auto& name : file_.list(path)) {
        const std::string dataset = path + "/" + name;
        if (!is_dataset(dataset) || !is_measured_quantity(dataset)) continue;
        const auto dims = file_.dims(dataset);
        if (dims.size() == 2 && dims[0] != iters)
          problem(ProblemKind::inconsistent,
                  fmt::format("{}: {} iterations, but the point's iters attribute says {}", dataset, dims[0], iters));
      }
    }
  }

  // Where a point names each rank's group (tp_group), every per-rank dataset
  // has one column per rank, and t_step_us one per group (from schema 3; in
  // schema 2 one per rank).
  void check_point_columns(const std::string& path) {
    const std::string groups_path = step_dataset_path(path, step_dataset::tp_group);
    if (!file_.exists(groups_path) || !is_dataset(groups_path)) return;
    const std::vector<std::int64_t> groups = file_.read_integers(groups_path);
    if (groups.empty()) return;
    const auto ranks = static_cast<std::uint64_t>(groups.size());
    const auto group_count = static_cast<std::uint64_t>(groups.back() - groups.front() + 1);
    for (const auto& name : file_.list(path)) {
      const std::string dataset = path + "/" + name;
      if (!is_dataset(dataset) || !is_measured_quantity(dataset)) continue;
      const auto dims = file_.dims(dataset);
      const bool per_group = name == step_dataset::t_step_us;
      const std::uint64_t expected = per_group ? group_count : ranks;
      if (dims.size() == 2 && dims[1] != expected)
        problem(ProblemKind::inconsistent,
                fmt::format("{}: {} columns, but tp_group names {} {}", dataset, dims[1], expected,
                            per_group ? "groups" : "ranks"));
    }
  }

  // The registration's own seal (seal_problem): a file whose predictions
  // were edited after registration is not judged.
  void check_prereg() {
    if (!file_.exists(kPreregGroup)) return;
    H5Handle prereg = file_.open_object(kPreregGroup);
    std::string text;
    if (file_.exists(kPreregText)) {
      const auto lines = file_.read_strings(kPreregText);
      if (lines.size() == 1) text = lines.front();
    }
    if (text.empty()) {
      problem(ProblemKind::inconsistent, "/prereg holds no predictions_json text");
      return;
    }
    if (!has_attribute(prereg.id(), "sha256")) {
      problem(ProblemKind::inconsistent, "/prereg has no sha256 attribute");
      return;
    }
    const std::string broken = seal_problem({text, read_string_attribute(prereg.id(), "sha256"), ""});
    if (!broken.empty()) problem(ProblemKind::inconsistent, "/prereg: " + broken);
  }

 private:
  // HDF5 calls this from C: an exception must not unwind through HDF5's
  // frames (its API state would be left half entered, and the library's
  // shutdown at exit would then crash). It stops the visit instead, and
  // check_datasets rethrows it once HDF5 has returned.
  static herr_t visit(hid_t root, const char* name, const H5L_info_t* info, void* self) {
    auto& checker = *static_cast<Checker*>(self);
    try {
      return checker.visit_object(root, name, info);
    } catch (...) {
      checker.visit_failure_ = std::current_exception();
      return -1;
    }
  }

  herr_t visit_object(hid_t root, const char* name, const H5L_info_t*) {
    const std::string path = std::string("/") + name;
    const hid_t object = H5Oopen(root, name, H5P_DEFAULT);
    if (object < 0) {
      problem(ProblemKind::inconsistent, fmt::format("{}: cannot be opened", path));
      return 0;
    }
    const H5I_type_t type = H5Iget_type(object);
    H5Oclose(object);
    if ((type == H5I_GROUP || type == H5I_DATASET) && !schema_names(path, type == H5I_GROUP))
      problem(ProblemKind::inconsistent, fmt::format("{}: not a {} the results schema (version {}) names", path,
                                                     type == H5I_GROUP ? "group" : "dataset", result_.schema_version));
    if (type == H5I_GROUP) groups_.push_back(path);
    if (type == H5I_DATASET) check_dataset(path);
    return 0;
  }

  void check_dataset(const std::string& path) {
    ++result_.datasets_checked;
    try {
      H5Handle dataset(H5_CHECK(H5Dopen2(file_.id(), path.c_str(), H5P_DEFAULT)), H5Dclose);
      H5Handle type(H5_CHECK(H5Dget_type(dataset.id())), H5Tclose);
      const H5T_class_t type_class = H5Tget_class(type.id());
      if (type_class == H5T_STRING) {
        file_.read_strings(path);
        return;
      }
      if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) return;
      const std::vector<double> values = file_.read_doubles(path);
      if (type_class != H5T_FLOAT || !is_measured_quantity(path)) return;
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) {
          problem(ProblemKind::inconsistent,
                  fmt::format("{}: element {} is {} (a measured time or rate must be finite)", path, i, values[i]));
          return;
        }
    } catch (const Error&) {
      problem(ProblemKind::inconsistent, fmt::format("{}: cannot be read (truncated or corrupted)", path));
    }
  }

  bool is_dataset(const std::string& path) const {
    H5Handle object = file_.open_object(path);
    return H5Iget_type(object.id()) == H5I_DATASET;
  }

  const H5File& file_;
  VerifyResult& result_;
  std::exception_ptr visit_failure_;
  int world_size_ = 0;
  std::vector<std::string> groups_;
};

}  // namespace

bool VerifyResult::unreadable() const {
  return std::any_of(problems.begin(), problems.end(),
                     [](const VerifyProblem& p) { return p.kind == ProblemKind::unreadable; });
}

std::string VerifyResult::summary() const {
  if (ok()) return fmt::format("{}: ok (schema {}, {} datasets, complete=1)", path, schema_version, datasets_checked);
  return fmt::format("{}: {}", path, problems.front().message);
}

VerifyResult verify_results_file(const std::string& path) {
  if (access(path.c_str(), F_OK) != 0)
    throw UsageError(fmt::format("FILE: results file '{}' does not exist", path));
  VerifyResult result;
  result.path = path;
  std::unique_ptr<H5File> file;
  try {
    file = std::make_unique<H5File>(path, H5Mode::read_only);
  } catch (const UsageError&) {
    result.problems.push_back({ProblemKind::unreadable, "not an HDF5 file, or truncated"});
    return result;
  }
  Checker checker(*file, result);
  try {
    if (!checker.check_meta()) return result;
    checker.check_datasets();
    checker.check_groups_fit_world();
    checker.check_sweep_groups();
    checker.check_point_groups();
    checker.check_prereg();
  } catch (const Error& error) {
    checker.problem(ProblemKind::inconsistent, error.message());
  } catch (const std::exception& error) {  // a shape no writer produces (e.g. a scalar where a list belongs)
    checker.problem(ProblemKind::inconsistent, error.what());
  }
  // Last: a structural problem says more about a file than its missing flag.
  if (!result.complete)
    checker.problem(ProblemKind::incomplete, "/meta complete=0: the run did not finish (killed, failed or still running)");
  return result;
}

VerifyResult require_verified_results(const std::string& path, bool allow_incomplete) {
  VerifyResult result = verify_results_file(path);
  if (result.ok() || (allow_incomplete && !result.unreadable())) return result;
  throw UsageError(fmt::format("{} (run 'mpi_bench verify {}'{})", result.summary(), path,
                               result.unreadable() ? "" : "; --allow-incomplete reads it anyway"));
}

std::string incomplete_banner(const VerifyResult& result) {
  if (result.ok()) return {};
  return fmt::format("> WARNING: built with --allow-incomplete from {}", result.summary());
}

void label_unverified_report(const std::string& markdown_path, const VerifyResult& result) {
  if (result.ok()) return;
  std::string body;
  {
    std::ifstream in(markdown_path, std::ios::binary);
    TPB_CHECK(in.good(), fmt::format("cannot read report '{}' to label it", markdown_path));
    body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream out(markdown_path, std::ios::binary | std::ios::trunc);
  out << incomplete_banner(result) << "\n\n" << body;
  TPB_CHECK(out.good(), fmt::format("cannot write report '{}'", markdown_path));
}

}  // namespace tpb
