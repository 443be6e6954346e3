// The rounds as stored and reduced: each rank's time inside a TP-k step's
// collectives goes to /rounds and comes back, from the file and from the
// records in memory alike, as the per-rank medians of group 0; where a visit
// did not measure it, it is absent, never 0. The anchors come back as every
// rank's own median, so that a TP-k cell is priced on its group's slowest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "results/layout.hpp"
#include "results/round_records.hpp"

namespace tpb {
namespace {

// TP 1 and 2 at one (b, c), two rounds of three iterations on four ranks:
// at TP-2 two groups, group 0 being ranks 0 and 1.
const Grid kGrid{{1, 2}, {1}, {8}};
constexpr int kRounds = 2, kIterations = 3, kRanks = 4;

RoundRecords two_rounds() {
  RoundRecords r;
  r.conditions = round_conditions(kGrid);
  r.iterations = kIterations;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < r.conditions.size(); ++i) order.push_back(i);
    r.order.push_back(order);
  }
  const auto cells = static_cast<std::size_t>(kRounds * kIterations * kRanks);
  for (const RoundCondition& c : r.conditions) {
    r.columns.push_back(kRanks);
    std::vector<double> times(cells, 100.0);
    if (c.kind == RoundKind::step_nocomm && c.k == 1)
      for (std::size_t i = 0; i < cells; ++i) times[i] = 100.0 + 10.0 * static_cast<double>(i % kRanks);  // rank r: 100 + 10 r
    r.t_rank_us.push_back(times);
    r.t_host_us.push_back(is_replay_anchor(c) ? std::vector<double>(cells, 90.0) : std::vector<double>{});
    r.t_collective_us.emplace_back();
    if (has_collective_samples(c))
      // rounds × iterations × ranks; ranks 2 and 3 (group 1) are not group 0's.
      r.t_collective_us.back() = {5, 10, 1e6, 1e6,  1, 20, 1e6, 1e6,  3, 30, 1e6, 1e6,   // round 0
                                  2, 7, 1e6, 1e6,   2, 8, 1e6, 1e6,   9, 6, 1e6, 1e6};   // round 1
  }
  return r;
}

class RoundRecordsFile : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  std::vector<RoundObservation> written_and_read(const RoundRecords& records) {
    {
      H5File file(path_, H5Mode::create_overwrite);
      write_round_records(file, records);
    }
    const H5File file(path_, H5Mode::read_only);
    collective_dataset_written_ = file.exists(collective_path_);
    return read_round_observations(file, kGrid);
  }
  const std::string path_ =
      (std::filesystem::temp_directory_path() / ("tpb_round_records_" + std::to_string(getpid()) + ".h5")).string();
  const std::string collective_path_ =
      round_condition_path(RoundKind::step, 2, 1, 8) + "/" + round_dataset::t_collective_insitu_us;
  bool collective_dataset_written_ = false;
};

TEST_F(RoundRecordsFile, RankCollectiveTimeIsEachGroupZeroRanksMedianPerRound) {
  EXPECT_TRUE(schema_names(collective_path_, false));
  const RoundRecords records = two_rounds();
  for (const std::vector<RoundObservation>& rounds : {written_and_read(records), round_observations(records)}) {
    ASSERT_EQ(rounds.size(), 2u);
    const DegreeCell cell{2, 1, 8};
    EXPECT_EQ(rounds[0].rank_collective_us.at(cell), (std::vector<double>{3, 20}));
    EXPECT_EQ(rounds[1].rank_collective_us.at(cell), (std::vector<double>{2, 7}));
    EXPECT_EQ(rounds[0].rank_collective_us.size(), 1u);  // TP-k steps with k > 1 only
  }
  EXPECT_TRUE(collective_dataset_written_);
}

TEST_F(RoundRecordsFile, AnchorsAreEveryRanksMedianAndACellIsPricedOnItsGroupsSlowest) {
  const RoundRecords records = two_rounds();
  for (const std::vector<RoundObservation>& rounds : {written_and_read(records), round_observations(records)}) {
    const RoundObservation& round = rounds.at(1);
    EXPECT_EQ(round.compute1_rank_us.at(GridCell{1, 8}), (std::vector<double>{100, 110, 120, 130}));
    EXPECT_EQ(round.host_rank_us.at(DegreeCell{2, 1, 8}), (std::vector<double>(kRanks, 90.0)));
    CellInputs tp1, tp2;
    tp1.batch = tp2.batch = 1;
    tp1.context = tp2.context = 8;
    tp1.inputs.k = 1;
    tp2.inputs.k = 2;
    EXPECT_EQ(paired_inputs(tp1, round).t_compute1_us, 100.0);  // TP-1's group is rank 0
    EXPECT_EQ(paired_inputs(tp2, round).t_compute1_us, 110.0);  // TP-2's group 0: ranks 0 and 1
    EXPECT_EQ(paired_inputs(tp1, round).t_replay_us, 100.0);    // a TP-1 shard is the whole model
  }
}

TEST_F(RoundRecordsFile, RankCollectiveTimeNotMeasuredIsAbsent) {
  RoundRecords none = two_rounds();
  for (auto& samples : none.t_collective_us) samples.clear();
  RoundRecords one_visit_short = two_rounds();  // round 1's visit did not record it
  for (auto& samples : one_visit_short.t_collective_us)
    if (!samples.empty()) samples.resize(samples.size() / 2);
  for (const RoundRecords& records : {none, one_visit_short}) {
    for (const std::vector<RoundObservation>& rounds : {written_and_read(records), round_observations(records)}) {
      ASSERT_EQ(rounds.size(), 2u);
      for (const RoundObservation& round : rounds) {
        EXPECT_TRUE(round.rank_collective_us.empty());
        EXPECT_EQ(round.step_us.size(), 2u);  // the rest is reduced as before
      }
    }
    EXPECT_FALSE(collective_dataset_written_);
  }
}

}  // namespace
}  // namespace tpb
