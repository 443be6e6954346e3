// One small study at 2 ranks (TP 1 and 2, tiny config), run stage by stage in
// process; then, on rank 0: the verdicts and the report recomputed by hand from
// the raw datasets, and every way of tampering with the registration refused.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "mpi_bench/pipeline/shard_residency.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_run.hpp"
#include "predictor/sha256.hpp"
#include "results/custody.hpp"
#include "results/report.hpp"
#include "results/round_records.hpp"
#include "results/verify.hpp"
#include "predictor/visit_order.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string study_dir() {
  int pid = world_rank() == 0 ? static_cast<int>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return (fs::temp_directory_path() / ("tpb_pipeline_" + std::to_string(pid))).string();
}

StudyDeclaration tiny_study() {
  StudyDeclaration d;
  d.model_path = TPB_TINY_CONFIG;
  d.grid = {{1, 2}, {1, 2}, {8}};
  d.backend = BackendKind::cpu;
  d.warmup_iters = 1;
  d.iters = 6;
  d.sweep_iters = 3;
  d.bootstrap_resamples = 200;
  d.rounds = 6;  // short: one block of 5 rounds, so every interval stays unformed and every cell open
  return d;
}

// Collective: the whole study of `d` into DIR/study.h5, through the run_study that `run` calls.
void run_whole_study(const StudyDeclaration& d, const std::string& dir, const std::string& command_line) {
  StudyRuntime runtime = start_study_runtime(d);
  std::unique_ptr<ResultsFile> file;
  if (world_rank() == 0) {
    fs::create_directories(dir);
    RunMeta meta;
    meta.command_line = command_line;
    meta.hostnames = {"localhost"};
    meta.rank_map = {R"({"rank": 0, "node": "localhost", "device": "cpu"})",
                     R"({"rank": 1, "node": "localhost", "device": "cpu"})"};
    file = std::make_unique<ResultsFile>(dir + "/study.h5", true, meta);
  }
  StudyRunChoices choices;
  choices.kill_switch_pct = 15.0;
  choices.out_dir = dir;
  run_study(runtime, file.get(), choices);  // as `run` does
  MPI_Barrier(MPI_COMM_WORLD);
}

// Runs the tiny study into DIR/study.h5 once per process.
class Pipeline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = study_dir();
    path_ = dir_ + "/study.h5";
    run_whole_study(tiny_study(), dir_, "test_pipeline_mpi");
  }
  static void TearDownTestSuite() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) fs::remove_all(dir_);
  }
  // A copy of the judged file for rank 0 to tamper with.
  static std::string copy_of_study(const std::string& name) {
    const std::string copy = dir_ + "/" + name + ".h5";
    fs::copy_file(path_, copy, fs::copy_options::overwrite_existing);
    return copy;
  }
  static inline std::string dir_;
  static inline std::string path_;
};

std::vector<double> slowest_per_iteration_by_hand(const H5File& file, const std::string& path) {
  std::vector<std::uint64_t> dims;
  const std::vector<double> values = file.read_doubles(path, &dims);
  std::vector<double> out;
  for (std::uint64_t i = 0; i < dims[0]; ++i) {
    double slowest = values[i * dims[1]];
    for (std::uint64_t r = 1; r < dims[1]; ++r) slowest = std::max(slowest, values[i * dims[1] + r]);
    out.push_back(slowest);
  }
  return out;
}

double median_by_hand(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + 0.5 * (v[n / 2] - v[n / 2 - 1]);
}

TEST_F(Pipeline, FileHoldsEveryStage) {
  if (world_rank() != 0) return;
  const H5File file(path_, H5Mode::read_only);
  for (const char* group : {"/prereg", "/step", "/step_nocomm", "/replay", "/sweep", "/sweep_allgather", "/control",
                            "/verdict", "/study", "/config", "/rounds", "/rounds/visits"})
    EXPECT_TRUE(file.exists(group)) << group;
  EXPECT_TRUE(results_file_complete(file));
  EXPECT_TRUE(fs::exists(dir_ + "/predictions.json"));
}

TEST_F(Pipeline, VerdictsAndReportRecomputeExactlyFromRawDatasets) {
  if (world_rank() != 0) return;
  const std::string report_dir = dir_ + "/report";
  const std::string report_path = write_report(path_, report_dir);
  std::ifstream in(report_path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string report = buffer.str();
  for (const char* figure : {"fig_t_step_vs_k.png", "fig_terms.png", "fig_sweep.png"})
    EXPECT_TRUE(fs::exists(report_dir + "/" + figure)) << figure;

  const H5File file(path_, H5Mode::read_only);
  const auto prereg = nlohmann::json::parse(file.read_strings("/prereg/predictions_json").front());
  int judged = 0;
  for (const auto& form : prereg["model_forms"])
    for (int k : prereg["grid"]["tp"]) {
      const std::string name = form["name"];
      double sum = 0;
      int cells = 0;
      for (const auto& p : prereg["predictions"]) {
        if (p["form"] != name || p["k"] != k) continue;
        const double measured = median_by_hand(slowest_per_iteration_by_hand(
            file, fmt::format("/step/k{}/b{}_c{}/t_step_us", k, p["batch"].get<int>(), p["context"].get<int>())));
        sum += std::abs((p["t_step_us"].get<double>() - measured) / measured * 100.0);
        ++cells;
      }
      const double mape = sum / cells;
      double threshold = 0;
      for (const auto& row : prereg["kill_switches"])
        if (row["form"] == name) threshold = row["mape_threshold_pct"];
      const std::string verdict = mape <= threshold ? "HOLDS" : "FALSIFIED";
      H5Handle group = file.open_object(fmt::format("/verdict/{}/k{}", name, k));
      EXPECT_EQ(read_double_attribute(group.id(), "point_mape_pct"), mape) << name << " k=" << k;
      EXPECT_EQ(read_string_attribute(group.id(), "point_verdict"), verdict) << name << " k=" << k;
      // The first round is described, not judged: its row carries the MAPE and no verdict.
      const std::string row = fmt::format("| {} | `{}` | {:.2f} % | ", k, name, mape);
      const auto at = report.find(row);
      ASSERT_NE(at, std::string::npos) << "report lacks: " << row;
      const std::string line = report.substr(at, report.find('\n', at) - at);
      EXPECT_EQ(line.find("HOLDS"), std::string::npos) << line;
      EXPECT_EQ(line.find("FALSIFIED"), std::string::npos) << line;
      ++judged;
    }
  EXPECT_EQ(judged, 12);  // 6 forms (roofline: the CPU calibration measured its ceilings) × 2 degrees
  // Nothing in the single-pass part names a verdict beside the decision over rounds.
  const auto single = report.find("## Single pass (first round): descriptive only");
  const auto speedup = report.find("## Speedup from k to 2k");
  ASSERT_NE(single, std::string::npos);
  ASSERT_NE(speedup, std::string::npos);
  const std::string single_pass = report.substr(single, speedup - single);
  EXPECT_EQ(single_pass.find("HOLDS"), std::string::npos) << single_pass;
  EXPECT_EQ(single_pass.find("FALSIFIED"), std::string::npos) << single_pass;
  EXPECT_EQ(single_pass.find("INCONCLUSIVE"), std::string::npos) << single_pass;
}

// The first screen of report.md, before the workload, is one table with a row
// per (k, form) and the verdicts the file stores, then the line that says it
// speaks for one launch, and the round plan said before measuring.
TEST_F(Pipeline, ReportOpensWithTheVerdictTable) {
  if (world_rank() != 0) return;
  const std::string report = render_report_markdown(path_);
  const auto answer = report.find("## The answer per TP degree");
  const auto workload = report.find("## Question and declared workload");
  ASSERT_NE(answer, std::string::npos);
  ASSERT_NE(workload, std::string::npos);
  EXPECT_LT(answer, workload);
  EXPECT_EQ(report.rfind("\n## ", answer), report.find("\n## "));  // the first section
  const std::string first_screen = report.substr(answer, workload - answer);
  EXPECT_NE(first_screen.find("\n| k | form | verdict | worst cell: error [1-2α interval] | MAPE | localized term |\n"),
            std::string::npos)
      << first_screen;
  const H5File file(path_, H5Mode::read_only);
  for (const auto& form : model_forms())
    for (int k : {1, 2}) {
      H5Handle group = file.open_object(verdict_group_path(form.name, k));
      const std::string verdict = read_string_attribute(group.id(), "verdict");
      const std::string reason = read_string_attribute(group.id(), "reason");
      const std::string shown = verdict == "INCONCLUSIVE" ? fmt::format("INCONCLUSIVE ({})", reason) : verdict;
      EXPECT_NE(first_screen.find(fmt::format("\n| {} | {} | {} | ", k, form.name, shown)), std::string::npos)
          << form.name << " k=" << k << "\n" << first_screen;
    }
  EXPECT_NE(first_screen.find("This table speaks for one launch"), std::string::npos) << first_screen;
  const RoundsDesign design = checked_registration(file).design;
  EXPECT_NE(report.find(decision_rule_text(design.rule)), std::string::npos);
  ASSERT_TRUE(design.plan.has_value());  // what N can resolve, said before measuring
  EXPECT_NE(first_screen.find("Round plan (said before measuring): " + round_plan_line(*design.plan)),
            std::string::npos)
      << first_screen;
}

// In every step point of the study, t_step_us is per iteration the slowest
// rank of each TP group (iterations × groups), read off t_rank_us (each rank's
// own time, iterations × ranks).
TEST_F(Pipeline, StudyTStepIsTheSlowestRankOfItsGroup) {
  if (world_rank() != 0) return;
  const H5File file(path_, H5Mode::read_only);
  int points = 0;
  for (const char* root : {"/step", "/step_nocomm", "/replay"})
    for (const auto& k_name : file.list(root))
      for (const auto& point_name : file.list(std::string(root) + "/" + k_name)) {
        const std::string point = std::string(root) + "/" + k_name + "/" + point_name;
        std::vector<std::uint64_t> step_dims, rank_dims;
        const std::vector<double> t_step = file.read_doubles(point + "/t_step_us", &step_dims);
        const std::vector<double> t_rank = file.read_doubles(point + "/t_rank_us", &rank_dims);
        const std::vector<std::int64_t> groups = file.read_integers(point + "/tp_group");
        ASSERT_EQ(groups.size(), rank_dims[1]) << point;
        const auto group_count = static_cast<std::uint64_t>(groups.back() - groups.front() + 1);
        ASSERT_EQ(step_dims, (std::vector<std::uint64_t>{rank_dims[0], group_count})) << point;
        for (std::uint64_t i = 0; i < rank_dims[0]; ++i)
          for (std::uint64_t g = 0; g < group_count; ++g) {
            double slowest = 0;
            for (std::uint64_t q = 0; q < rank_dims[1]; ++q)
              if (groups[q] == groups.front() + static_cast<std::int64_t>(g))
                slowest = std::max(slowest, t_rank[i * rank_dims[1] + q]);
            EXPECT_EQ(t_step[i * group_count + g], slowest) << point << " iteration " << i << " group " << g;
          }
        ++points;
      }
  EXPECT_EQ(points, 3 * 2 * 2);  // /step, /step_nocomm and /replay, each at k ∈ {1, 2} × b ∈ {1, 2}
}

// Runs `check` and expects a UsageError whose message contains `needle`.
template <typename F>
void expect_refusal(F check, const std::string& needle) {
  try {
    check();
    ADD_FAILURE() << "accepted; expected a refusal mentioning '" << needle << "'";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
  }
}

void replace_prereg(const std::string& path, const std::string& text, const std::string& sha256,
                    const std::string& registered_at) {
  H5File file(path, H5Mode::read_write);
  write_prereg(file, {text, sha256, registered_at});
}

TEST_F(Pipeline, ChangedThresholdIsRefused) {
  if (world_rank() != 0) return;
  const std::string copy = copy_of_study("threshold");
  const PreregRecord original = read_prereg(H5File(copy, H5Mode::read_only));
  std::string edited = original.text;
  const std::string from = "\"mape_threshold_pct\": 15.0";
  ASSERT_NE(edited.find(from), std::string::npos);
  edited.replace(edited.find(from), from.size(), "\"mape_threshold_pct\": 50.0");
  // Edited, hash left alone: the seal breaks.
  replace_prereg(copy, edited, original.sha256, original.registered_at);
  expect_refusal([&] { H5File f(copy, H5Mode::read_write); verdict_stage(f, DesignClaims{}); }, "edited after registration");
  // Edited and resealed: the measurement still names the original registration.
  replace_prereg(copy, edited, sha256_hex(edited), original.registered_at);
  expect_refusal([&] { H5File f(copy, H5Mode::read_write); verdict_stage(f, DesignClaims{}); },
                 "measurement ran under registration");
  // A threshold asked for at verdict time must be the registered one.
  const std::string intact = copy_of_study("kill_switch");
  expect_refusal([&] { H5File f(intact, H5Mode::read_write); verdict_stage(f, DesignClaims{.kill_switch_pct = 20.0}); }, "differs from the 15");
}

TEST_F(Pipeline, RegistrationWrittenAfterMeasurementIsRefused) {
  if (world_rank() != 0) return;
  const std::string copy = copy_of_study("late");
  const PreregRecord original = read_prereg(H5File(copy, H5Mode::read_only));
  auto doc = nlohmann::ordered_json::parse(original.text);
  doc["registered_at"] = "2999-01-01T00:00:00.000000Z";
  const std::string late = doc.dump(2) + "\n";
  replace_prereg(copy, late, sha256_hex(late), "2999-01-01T00:00:00.000000Z");
  {
    // Even with the measurement stamp rewritten to name the late registration.
    H5File file(copy, H5Mode::read_write);
    write_measurement_stamp(file, {sha256_hex(late), read_measurement_stamp(file).started_at});
  }
  expect_refusal([&] { H5File f(copy, H5Mode::read_write); verdict_stage(f, DesignClaims{}); },
                 "is not older than the measurement");
}

TEST_F(Pipeline, MissingRegistrationIsRefused) {
  if (world_rank() != 0) return;
  const std::string copy = copy_of_study("unregistered");
  {
    H5File file(copy, H5Mode::read_write);
    ASSERT_GE(H5Ldelete(file.id(), "/prereg", H5P_DEFAULT), 0);
  }
  expect_refusal([&] { H5File f(copy, H5Mode::read_write); verdict_stage(f, DesignClaims{}); }, "no registration");
  expect_refusal([&] { write_report(copy, dir_ + "/unregistered_report"); }, "no registration");
}

TEST_F(Pipeline, MeasureRefusesWithoutRegistrationOnEveryRank) {
  // Calibrated but never registered: measure must refuse before any TP-k step.
  StudyRuntime runtime = start_study_runtime(tiny_study());
  std::unique_ptr<ResultsFile> file;
  const std::string path = dir_ + "/calibrated_only.h5";
  if (world_rank() == 0) {
    const H5File source(path_, H5Mode::read_only);
    file = std::make_unique<ResultsFile>(path, true, RunMeta{});
    Workload w;
    Grid g;
    read_study_declaration(source, &w, &g);
    write_study_declaration(file->h5(), w, g);
  }
  expect_refusal([&] { measure_stage(runtime, file.get()); }, "no registration");
  if (file) {
    EXPECT_FALSE(has_measurement(file->h5()));
  }
}

// The rounds: the stored order is the one the sealed seed draws (and, for
// this seed and grid, the golden first round below), every visit is recorded
// in execution order, and verify accepts the file.
TEST_F(Pipeline, RoundsStoreTheSealedOrderAndEveryVisit) {
  if (world_rank() != 0) return;
  const H5File file(path_, H5Mode::read_only);
  const Registration r = parse_registration(read_prereg(file).text);
  EXPECT_EQ(r.design.order_seed, 20240u);
  // A fixed design: the plan says what N can resolve and leaves N as declared,
  // and the study runs every one of its rounds.
  ASSERT_TRUE(r.design.plan.has_value());
  EXPECT_EQ(r.design.plan->rounds, 6);
  EXPECT_EQ(r.design.rounds, 6);
  const auto conditions = round_conditions(r.grid);
  ASSERT_EQ(conditions.size(), 10u);  // per batch: TP-1 step; TP-2 step, --no-comm, replay; TP-1 --no-comm
  const auto order = read_round_order(file);
  ASSERT_EQ(order.size(), 6u);
  const auto drawn = round_visit_orders(conditions.size(), static_cast<int>(order.size()), 20240);
  EXPECT_EQ(order, drawn);
  // Seed 20240, 10 conditions: drawn by an independent Python transcription
  // of SplitMix64 + Fisher–Yates (the one behind visit_order_test's golden).
  const std::vector<std::size_t> golden_first_round = {4, 6, 8, 2, 9, 3, 0, 5, 1, 7};
  EXPECT_EQ(order.front(), golden_first_round);
  const auto visit_condition = file.read_integers(visit_dataset_path(visit_dataset::condition));
  const auto execution = file.read_integers(visit_dataset_path(visit_dataset::execution_index));
  ASSERT_EQ(visit_condition.size(), order.size() * conditions.size());
  for (std::size_t i = 0; i < visit_condition.size(); ++i) {
    EXPECT_EQ(execution[i], static_cast<std::int64_t>(i));
    EXPECT_EQ(static_cast<std::size_t>(visit_condition[i]), order[i / conditions.size()][i % conditions.size()]);
  }
  std::vector<std::uint64_t> dims;
  file.read_doubles(round_condition_path(RoundKind::step, 2, 1, 8) + "/t_rank_us", &dims);
  EXPECT_EQ(dims, (std::vector<std::uint64_t>{order.size(), 6, 2}));  // rounds × iterations × ranks
  const VerifyResult verified = verify_results_file(path_);
  EXPECT_TRUE(verified.problems.empty()) << verified.problems.front().message;
}

// Calibration in rounds: its order is the sealed seed's over the calibration
// conditions, every visit is recorded, and each calibration point holds the
// iterations of every round (what the registration was computed from).
TEST_F(Pipeline, CalibrationRunsInRoundsAndStoresEveryVisit) {
  if (world_rank() != 0) return;
  const H5File file(path_, H5Mode::read_only);
  const StudyDeclaration d = tiny_study();
  const auto conditions = calibration_conditions(d.grid, {});
  ASSERT_EQ(conditions.size(), 6u);  // replay k=2 and k=1 per batch, then TP-1 --no-comm per batch
  std::vector<std::uint64_t> dims;
  const auto flat = file.read_integers(rounds_order_path(RoundsPhase::calibrate), &dims);
  ASSERT_EQ(dims, (std::vector<std::uint64_t>{static_cast<std::uint64_t>(d.calibration_rounds), 6}));
  const auto drawn = round_visit_orders(6, d.calibration_rounds, d.bootstrap_seed);
  for (std::size_t r = 0; r < drawn.size(); ++r)
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(static_cast<std::size_t>(flat[r * 6 + i]), drawn[r][i]);
  const auto visits = file.read_integers(visit_dataset_path(visit_dataset::execution_index, RoundsPhase::calibrate));
  EXPECT_EQ(visits.size(), 6u * static_cast<std::size_t>(d.calibration_rounds));
  for (const auto& path : {step_point_path(StepRoot::replay, 2, 1, 8), step_point_path(StepRoot::step_nocomm, 1, 2, 8)}) {
    file.read_doubles(step_dataset_path(path, step_dataset::t_rank_us), &dims);
    EXPECT_EQ(dims.at(0), static_cast<std::uint64_t>(d.calibration_rounds * d.iters)) << path;
    H5Handle point = file.open_object(path);
    EXPECT_EQ(read_integer_attribute(point.id(), "iters"), d.calibration_rounds * d.iters) << path;
  }
  H5Handle rounds = file.open_object(rounds_group(RoundsPhase::calibrate));
  EXPECT_EQ(read_string_attribute(rounds.id(), "residency"), "every shard and point state cached");
}

// Where memory holds one shard at a time, calibration and measurement visit
// the conditions in blocks of one shard, alternating A-B-B-A: a study given a
// budget between its largest point and every shard cached.
TEST(PipelineInBlocks, ABudgetBelowEveryShardVisitsInAlternatingBlocks) {
  const std::string dir = study_dir() + "_blocks";
  StudyDeclaration d = tiny_study();
  std::int64_t budget = 0;
  {
    const StudyRuntime probe = start_study_runtime(d);
    // Calibration draws fewer shards than measurement: below its figure, both are in blocks.
    const ShardResidency every = plan_shard_residency(probe, calibration_conditions(d.grid, {}));
    ASSERT_TRUE(every.every_shard_cached);
    budget = (probe.memory.largest.total() + every.bytes_every_shard) / 2;
    ASSERT_LT(probe.memory.largest.total(), budget);
  }
  d.mem_per_device = MemoryBudget{budget, "test: between the largest point and every shard"};
  run_whole_study(d, dir, "test_pipeline_mpi blocks");
  if (world_rank() == 0) {
    const H5File done(dir + "/study.h5", H5Mode::read_only);
    for (const RoundsPhase phase : {RoundsPhase::calibrate, RoundsPhase::measure}) {
      H5Handle group = done.open_object(rounds_group(phase));
      EXPECT_EQ(read_string_attribute(group.id(), "residency"), "blocks A-B-B-A");
      const auto block_of = done.read_integers(std::string(rounds_group(phase)) + "/block_of_condition");
      const std::vector<std::size_t> blocks(block_of.begin(), block_of.end());
      std::vector<std::uint64_t> dims;
      const auto flat = done.read_integers(rounds_order_path(phase), &dims);
      const auto drawn = blocked_round_orders(blocks, static_cast<int>(dims[0]), d.bootstrap_seed);
      for (std::size_t r = 0; r < dims[0]; ++r)
        for (std::size_t i = 0; i < dims[1]; ++i)
          EXPECT_EQ(static_cast<std::size_t>(flat[r * dims[1] + i]), drawn[r][i]) << "round " << r;
    }
    const VerifyResult verified = verify_results_file(dir + "/study.h5");
    EXPECT_TRUE(verified.problems.empty()) << verified.problems.front().message;
    fs::remove_all(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Every (form, k) carries the decision's attributes; the host forms are
// NOT_APPLICABLE on CPU with their reason; the report's diagnostics gate nothing.
TEST_F(Pipeline, VerdictAttributesControlsAndNotApplicableOnCpu) {
  if (world_rank() != 0) return;
  const H5File file(path_, H5Mode::read_only);
  const std::vector<RoundObservation> observed = read_round_observations(file, tiny_study().grid);
  const bool terms_measured = std::all_of(observed.begin(), observed.end(), [](const RoundObservation& o) {
    return o.nocomm_rank_us.count(DegreeCell{2, 1, 8}) && o.rank_collective_us.count(DegreeCell{2, 1, 8});
  });
  // `transfer` is judged only where it was registered (register --transfer-from).
  EXPECT_FALSE(file.exists(verdict_group_path("transfer", 1)));
  for (const auto& form : model_forms())
    for (int k : {1, 2}) {
      H5Handle group = file.open_object(verdict_group_path(form.name, k));
      EXPECT_TRUE(has_attribute(group.id(), "verdict") && has_attribute(group.id(), "reason"));
      const std::string verdict = read_string_attribute(group.id(), "verdict");
      const bool host_form = form.name == "host_floor" || form.name == "max_form";
      if (host_form) {
        EXPECT_EQ(verdict, "NOT_APPLICABLE") << form.name;
        EXPECT_NE(read_string_attribute(group.id(), "reason").find("host-synchronous"), std::string::npos);
        for (const char* name : {"mape_pct", "cell_error_pct", "localized_term"})
          EXPECT_FALSE(has_attribute(group.id(), name)) << form.name << " k=" << k << " has " << name;
      } else {
        // Six rounds are one block: no interval forms, so every cell stays open.
        EXPECT_EQ(verdict, "INCONCLUSIVE") << form.name << " k=" << k;
        EXPECT_EQ(read_string_attribute(group.id(), "reason"), "too_few_rounds");
        for (const char* name : {"mape_pct", "worst_cell", "error_ci_high_pct", "cell_mean_ratio_pct",
                                 "cell_hold_low_pct", "cell_falsify_high_pct", "cell_sealed_error_pct"})
          EXPECT_TRUE(has_attribute(group.id(), name)) << form.name << " k=" << k << " lacks " << name;
        EXPECT_EQ(read_double_list_attribute(group.id(), "cell_error_pct").size(), 2u);  // b ∈ {1, 2}, c = 8
        // k = 1 runs no collective: no term is measured there in the rounds, and none is written as 0;
        // at k = 2 the term is written exactly when the rounds hold its sources.
        EXPECT_EQ(has_attribute(group.id(), "localized_term"), k == 2 && terms_measured) << form.name << " k=" << k;
        if (k == 2 && terms_measured) {
          const std::string term = read_string_attribute(group.id(), "localized_term");
          EXPECT_TRUE(term == "compute" || term == "collective") << term;
        }
      }
    }
  H5Handle root = file.open_object(kVerdictGroup);
  for (const char* name : {"control_aa", "control_same_node_spread_pct", "alpha", "blocks", "family_cells",
                           "straggler_k2_pct", "straggler_k2_rank_slowdown_pct"})
    EXPECT_TRUE(has_attribute(root.id(), name)) << name;
  EXPECT_EQ(read_integer_attribute(root.id(), "rule_version"), kDecisionRuleVersion);
  EXPECT_EQ(read_string_attribute(root.id(), "control_aa"), "NOT_HELD");  // no interval forms in one block
  EXPECT_FALSE(has_attribute(root.id(), "straggler_k1_pct"));
  const std::string report_dir = dir_ + "/rounds_report";
  std::ifstream in(write_report(path_, report_dir));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string report = buffer.str();
  const auto diagnostics = report.find("### Diagnostics (reported; only the A/A gates)");
  const auto cells = report.find("### Every cell");
  ASSERT_NE(diagnostics, std::string::npos);
  ASSERT_NE(cells, std::string::npos);
  EXPECT_LT(diagnostics, cells);
  EXPECT_NE(report.find("| 2 | host_floor | NOT_APPLICABLE | "), std::string::npos);
  EXPECT_NE(report.find("| straggler at k = 2: "), std::string::npos);
  EXPECT_NE(report.find("## Host environment"), std::string::npos);
  EXPECT_TRUE(fs::exists(report_dir + "/fig_run_sequence.png"));
}

// Custody: the design and rule are sealed; a claim that differs is refused,
// and so is a registration whose decision section was edited.
TEST_F(Pipeline, ChangedRoundsSeedOrRuleIsRefused) {
  if (world_rank() != 0) return;
  const std::string intact = copy_of_study("design_claims");
  expect_refusal([&] { H5File f(intact, H5Mode::read_write); verdict_stage(f, DesignClaims{.seed = 1u}); },
                 "--seed: 1 differs from the registered 20240");
  expect_refusal(
      [&] { H5File f(intact, H5Mode::read_write); verdict_stage(f, DesignClaims{.rounds = 3}); },
      "--rounds: 3 differs from the registered 6");
  expect_refusal([&] { H5File f(intact, H5Mode::read_write); verdict_stage(f, DesignClaims{.family_alpha = 0.2}); },
                 "--alpha");
  const std::string copy = copy_of_study("rule_edited");
  const PreregRecord original = read_prereg(H5File(copy, H5Mode::read_only));
  std::string edited = original.text;
  const std::string from = "\"family_alpha\": 0.05";
  ASSERT_NE(edited.find(from), std::string::npos);
  edited.replace(edited.find(from), from.size(), "\"family_alpha\": 0.5");
  replace_prereg(copy, edited, original.sha256, original.registered_at);
  expect_refusal([&] { H5File f(copy, H5Mode::read_write); verdict_stage(f, DesignClaims{}); }, "edited after registration");
}

}  // namespace
}  // namespace tpb
