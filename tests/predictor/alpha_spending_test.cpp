// The O'Brien–Fleming-type spending of α over looks against hand-computed
// values, and the look α that adds up to the family α on every path.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/alpha_spending.hpp"

namespace tpb {
namespace {

TEST(NormalDistribution, QuantileInvertsTheDistributionFunction) {
  EXPECT_NEAR(normal_cdf(0.0), 0.5, 1e-15);
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-12);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.8), 0.8416212335729143, 1e-9);
  EXPECT_NEAR(normal_quantile(1e-6), -4.753424308822899, 1e-7);
  EXPECT_THROW(normal_quantile(0.0), Error);
}

TEST(ObrienFleming, SpendsAlmostNothingEarlyAndAllOfItAtTheEnd) {
  // 2·(1 − Φ(1.96/√t)): t = 0.5 → 2·(1 − Φ(2.7718)) = 0.005575; t = 0.25 → 2·(1 − Φ(3.9199)) = 8.86e-5.
  EXPECT_NEAR(obrien_fleming_spent(0.05, 0.5), 0.0055746, 1e-6);
  EXPECT_NEAR(obrien_fleming_spent(0.05, 0.25), 8.857e-5, 1e-7);
  EXPECT_DOUBLE_EQ(obrien_fleming_spent(0.05, 1.0), 0.05);
  EXPECT_DOUBLE_EQ(obrien_fleming_spent(0.05, 0.0), 0.0);
}

TEST(LookAlpha, TheLooksOfEveryPathAddUpToTheFamilyAlpha) {
  const std::vector<int> checkpoints{10, 20, 40, 60};
  double spent = 0;
  for (int look : checkpoints) spent += look_alpha(0.05, checkpoints, look, look == 60);
  EXPECT_NEAR(spent, 0.05, 1e-12);
  // Ended by the time budget at 20: the second look spends what the first left.
  EXPECT_NEAR(look_alpha(0.05, checkpoints, 10, false) + look_alpha(0.05, checkpoints, 20, true), 0.05, 1e-12);
  // A killed study judged at 27 rounds (no checkpoint) is a final look after 10 and 20.
  EXPECT_NEAR(look_alpha(0.05, checkpoints, 27, false),
              0.05 - obrien_fleming_spent(0.05, 20.0 / 60.0), 1e-12);
  EXPECT_LT(look_alpha(0.05, checkpoints, 10, false), 1e-4);  // 2·(1 − Φ(1.96·√6)) ≈ 1.6e-6
}

}  // namespace
}  // namespace tpb
