// docs/RESULTS_FORMAT.md against results/layout: the page's group and dataset
// tables name exactly the schema's paths, and every name layout.hpp declares
// builds a path the schema (so the page) names.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "results/layout.hpp"

namespace tpb {
namespace {

// The names in the page's tables, by each table's first header cell: `group`,
// `dataset` (one path a row) or `attribute` (one or more names a row).
struct PageTables {
  std::set<std::string> groups, datasets, attributes;
  std::string text;
};

PageTables read_page() {
  PageTables page;
  std::ifstream in(TPB_RESULTS_FORMAT_PAGE);
  EXPECT_TRUE(in) << "cannot read " << TPB_RESULTS_FORMAT_PAGE;
  static const std::regex header(R"(^\|\s*([a-z]+)\s*\|)");
  static const std::regex separator(R"(^\|\s*:?-)");
  static const std::regex quoted("`([^`]+)`");
  std::string line, kind;
  bool in_table = false;
  while (std::getline(in, line)) {
    page.text += line + "\n";
    if (line.empty() || line[0] != '|') {
      in_table = false;
      continue;
    }
    std::smatch m;
    if (!in_table) {
      in_table = true;
      kind = std::regex_search(line, m, header) ? m[1].str() : "";
      continue;
    }
    if (std::regex_search(line, separator)) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(first.begin(), first.end(), quoted); it != std::sregex_iterator(); ++it)
      names.push_back((*it)[1].str());
    if (kind == "attribute") page.attributes.insert(names.begin(), names.end());
    if (kind != "group" && kind != "dataset") continue;
    EXPECT_EQ(names.size(), 1u) << "a " << kind << " row names one path in backticks: " << line;
    if (names.empty()) continue;
    (kind == "group" ? page.groups : page.datasets).insert(names.front());
  }
  return page;
}

std::string difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string s;
  for (const std::string& name : a)
    if (!b.count(name)) s += "\n  " + name;
  return s;
}

TEST(ResultsFormatPage, TablesEveryDatasetOfTheSchemaAndNoOther) {
  const PageTables page = read_page();
  const std::set<std::string> schema(schema_dataset_patterns().begin(), schema_dataset_patterns().end());
  EXPECT_EQ(difference(schema, page.datasets), "") << "datasets results/layout names that the page does not table";
  EXPECT_EQ(difference(page.datasets, schema), "") << "datasets the page tables that results/layout does not name";
}

// A group the page tables, or the parent of one it tables, is a schema group;
// every schema group is one of those.
TEST(ResultsFormatPage, ItsGroupsAndTheirParentsAreTheSchemas) {
  const PageTables page = read_page();
  std::set<std::string> implied = page.groups;
  for (const auto* paths : {&page.groups, &page.datasets})
    for (const std::string& path : *paths)
      for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
        implied.insert(path.substr(0, slash));
  const std::set<std::string> schema(schema_group_patterns().begin(), schema_group_patterns().end());
  EXPECT_EQ(difference(schema, implied), "") << "groups results/layout names that the page does not table";
  EXPECT_EQ(difference(implied, schema), "") << "groups the page tables that results/layout does not name";
}

TEST(ResultsFormatPage, NamesTheSchemaVersionAndTheCollectiveAttributes) {
  const PageTables page = read_page();
  EXPECT_NE(page.text.find(fmt::format("schema version {}", kSchemaVersion)), std::string::npos);
  EXPECT_TRUE(page.attributes.count(collective_attribute::name));
  EXPECT_TRUE(page.attributes.count(collective_attribute::memory));
}

// Every path layout.hpp builds is one the schema names: a constant added to
// layout.hpp without its pattern fails here, and the tests above then hold
// the page to the pattern.
TEST(ResultsFormatPage, EveryPathTheLayoutBuildsIsInTheSchema) {
  for (const char* group : {kMetaGroup, kConfigGroup, kStudyGroup, kPreregGroup, kMembwGroup, kD2dGroup, kAblationGroup,
                            kKvGroup, kRoundsGroup, kCalibrationRoundsGroup, kDecisionGroup, kVerdictGroup})
    EXPECT_TRUE(schema_names(group, true)) << group;
  std::vector<std::string> groups = {
      ablation_root_path("oneshot"), kv_block_path(16),        kv_degree_path(2),
      decision_row_path(2, 1, 16),   decision_choice_path(16), verdict_group_path("ideal", 2)};
  std::vector<std::string> datasets = {kPreregText,
                                       kMembwReadGBps,
                                       kD2dCopyGBps,
                                       kRoundsOrder,
                                       kv_dataset_path("lengths"),
                                       decision_degree_path(2) + "/max_batch"};
  for (const ControlMode mode : {ControlMode::concurrent, ControlMode::alone})
    datasets.push_back(control_t_rank_path(mode, 1, 16));
  for (const StepRoot root :
       {StepRoot::step, StepRoot::step_nocomm, StepRoot::step_graph, StepRoot::step_graph_nocomm, StepRoot::replay}) {
    const std::string point = step_point_path(root, 2, 1, 16);
    groups.push_back(point);
    namespace d = step_dataset;
    for (const char* name : {d::t_step_us, d::t_rank_us, d::t_host_us, d::t_ar_insitu_us, d::t_ag_insitu_us,
                             d::tp_group, d::experts_touched})
      datasets.push_back(step_dataset_path(point, name));
    datasets.push_back(phase_dataset_path(point, "attention"));
  }
  datasets.push_back(ablation_root_path("oneshot") +
                     step_dataset_path(step_point_path(StepRoot::step, 2, 1, 16), step_dataset::t_step_us));
  for (const SweepRoot root : {SweepRoot::all_reduce, SweepRoot::all_gather}) {
    groups.push_back(sweep_group_path(root, 2, ablation_root_path("mpi")));
    datasets.push_back(sweep_dataset_path(root, 2, "time_us"));
  }
  for (const RoundsPhase phase : {RoundsPhase::calibrate, RoundsPhase::measure}) {
    datasets.push_back(rounds_order_path(phase));
    for (const char* name :
         {visit_dataset::condition, visit_dataset::round, visit_dataset::execution_index, visit_dataset::start_unix_us,
          visit_dataset::duration_us, visit_dataset::steal_pct, visit_dataset::load_avg_1m})
      datasets.push_back(visit_dataset_path(name, phase));
    for (const RoundKind kind : {RoundKind::step, RoundKind::step_nocomm, RoundKind::replay})
      for (const char* name :
           {round_dataset::t_rank_us, round_dataset::t_host_us, round_dataset::t_collective_insitu_us})
        datasets.push_back(round_condition_path(kind, 2, 1, 16, phase) + "/" + name);
  }
  for (const std::string& group : groups) EXPECT_TRUE(schema_names(group, true)) << group;
  for (const std::string& dataset : datasets) EXPECT_TRUE(schema_names(dataset, false)) << dataset;
  EXPECT_FALSE(schema_names("/control/alone/b1_c16/t_step_us", false)) << "schema 4 calls it t_rank_us";
}

}  // namespace
}  // namespace tpb
