// Every model form against values computed by hand from its DESIGN equation.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"

namespace tpb {
namespace {

// k=2: t_compute(1)/k = 500, collectives = 4·10 + 1·20 = 60.
FormInputs two_way(double t_host_us) {
  return {.k = 2, .t_compute1_us = 1000, .t_host_us = t_host_us, .t_replay_us = 530, .n_ar = 4,
          .t_ar_sweep_us = 10, .n_ag = 1, .t_ag_sweep_us = 20};
}

TEST(ModelForms, CollectiveTermIsAllReducesPlusAllGathers) {
  EXPECT_DOUBLE_EQ(collective_term_us(two_way(300)), 60.0);
}

TEST(ModelForms, IdealIsComputeOverKPlusCollectives) {
  const Prediction p = predict_ideal(two_way(300));
  EXPECT_DOUBLE_EQ(p.t_step_us, 560.0);
  EXPECT_DOUBLE_EQ(p.terms.compute_us, 500.0);
  EXPECT_DOUBLE_EQ(p.terms.collective_us, 60.0);
  EXPECT_DOUBLE_EQ(p.terms.host_us, 0.0);
}

TEST(ModelForms, HostFloorAddsTheMeasuredHostTerm) {
  const Prediction p = predict_host_floor(two_way(300));
  EXPECT_DOUBLE_EQ(p.t_step_us, 860.0);
  EXPECT_DOUBLE_EQ(p.terms.host_us, 300.0);
}

TEST(ModelForms, MaxFormHidesHostTimeBelowCompute) {
  EXPECT_DOUBLE_EQ(predict_max_form(two_way(300)).t_step_us, 560.0);  // max(300, 500) + 60
  EXPECT_DOUBLE_EQ(predict_max_form(two_way(300)).terms.host_us, 0.0);
}

TEST(ModelForms, MaxFormIsHostBoundAboveCompute) {
  const Prediction p = predict_max_form(two_way(700));  // max(700, 500) + 60
  EXPECT_DOUBLE_EQ(p.t_step_us, 760.0);
  EXPECT_DOUBLE_EQ(p.terms.compute_us, 500.0);
  EXPECT_DOUBLE_EQ(p.terms.host_us, 200.0);
}

TEST(ModelForms, ReplayUsesTheShardReplayInsteadOfComputeOverK) {
  const Prediction p = predict_replay(two_way(300));
  EXPECT_DOUBLE_EQ(p.t_step_us, 590.0);
  EXPECT_DOUBLE_EQ(p.terms.compute_us, 530.0);
}

TEST(ModelForms, TpOneHasNoSplit) {
  FormInputs in = two_way(0);
  in.k = 1;
  in.n_ar = 0;
  in.n_ag = 0;
  EXPECT_DOUBLE_EQ(predict_ideal(in).t_step_us, 1000.0);
}

TEST(ModelForms, TableListsEveryFormOnceAndFindsThemByName) {
  std::vector<std::string> names;
  for (const auto& form : model_forms()) names.emplace_back(form.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ideal", "host_floor", "max_form", "replay", "no_speedup"}));
  EXPECT_DOUBLE_EQ(find_model_form("host_floor").predict(two_way(300)).t_step_us, 860.0);
  EXPECT_THROW(find_model_form("roofline"), UsageError);
}

TEST(ModelForms, TransferIsRegisteredOnlyWhenAskedFor) {
  for (const auto& form : model_forms()) EXPECT_NE(form.name, "transfer");
  EXPECT_EQ(registered_forms(false).size(), model_forms().size());
  const std::vector<ModelForm> with = registered_forms(true);
  ASSERT_EQ(with.size(), model_forms().size() + 1);
  EXPECT_EQ(with.back().name, "transfer");
  EXPECT_EQ(&find_model_form("transfer"), &transfer_form());
}

TEST(ModelForms, TransferIsItsPricedComputePlusTheCollectives) {
  FormInputs in = two_way(300);
  in.t_transfer_us = 420;
  const Prediction p = predict_transfer(in);
  EXPECT_DOUBLE_EQ(p.t_step_us, 480.0);  // 420 + 60
  EXPECT_DOUBLE_EQ(p.terms.compute_us, 420.0);
}

TEST(ModelForms, NoSpeedupChargesTheWholeTp1ComputeAtEveryK) {
  FormInputs in = two_way(300);
  const double collectives = collective_term_us(in);
  EXPECT_DOUBLE_EQ(predict_no_speedup(in).t_step_us, in.t_compute1_us + collectives);
  in.k = 4;
  EXPECT_DOUBLE_EQ(predict_no_speedup(in).t_step_us, in.t_compute1_us + collective_term_us(in));
  in.k = 1;
  EXPECT_DOUBLE_EQ(predict_no_speedup(in).t_step_us, predict_ideal(in).t_step_us);  // an A/A cell at k = 1
}

TEST(ModelForms, TermsAlwaysAddUpToThePrediction) {
  for (const auto& form : model_forms())
    for (double host : {0.0, 300.0, 700.0}) {
      const Prediction p = form.predict(two_way(host));
      EXPECT_DOUBLE_EQ(p.t_step_us, p.terms.total_us()) << form.name << " host " << host;
    }
}

}  // namespace
}  // namespace tpb
