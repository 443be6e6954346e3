// Every model form against values computed by hand from its DESIGN equation.
#include <gtest/gtest.h>

#include <iterator>
#include <stdexcept>
#include <string_view>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"

namespace tpb {
namespace {

// k=2: t_compute(1)/k = 500, collectives = 4·10 + 1·20 = 60.
FormInputs two_way(double t_host_us) {
  return {.k = 2, .t_compute1_us = 1000, .t_host_us = t_host_us, .t_replay_us = 530, .n_ar = 4,
          .t_ar_sweep_us = 10, .n_ag = 1, .t_ag_sweep_us = 20};
}

const ModelForm& form_named(std::string_view name) {
  for (const ModelForm& form : model_forms())
    if (form.name == name) return form;
  throw std::invalid_argument(std::string(name));
}

TEST(ModelForms, CollectiveTermIsAllReducesPlusAllGathers) {
  EXPECT_DOUBLE_EQ(collective_term_us(two_way(300)), 60.0);
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
  EXPECT_DOUBLE_EQ(form_named("host_floor").predict(two_way(300)).t_step_us, 860.0);
}

TEST(ModelForms, RooflineIsItsSealedComputePlusTheCollectivesAndJudgedAbsolute) {
  FormInputs in = two_way(300);
  in.t_roofline_us = 123.0;
  EXPECT_DOUBLE_EQ(predict_roofline(in).t_step_us, 123.0 + collective_term_us(in));
  EXPECT_DOUBLE_EQ(predict_roofline(in).terms.compute_us, 123.0);
  const std::vector<ModelForm> with = registered_forms(false, true);
  ASSERT_EQ(with.size(), model_forms().size() + 1);
  EXPECT_EQ(with.back().name, "roofline");
  EXPECT_TRUE(with.back().absolute);
  for (const auto& form : model_forms()) EXPECT_FALSE(form.absolute) << form.name;  // paired on the round's anchors
}

TEST(ModelForms, TransferIsRegisteredOnlyWhenAskedFor) {
  for (const auto& form : model_forms()) EXPECT_NE(form.name, "transfer");
  EXPECT_EQ(registered_forms(false).size(), model_forms().size());
  const std::vector<ModelForm> with = registered_forms(true);
  ASSERT_EQ(with.size(), model_forms().size() + 1);
  EXPECT_EQ(with.back().name, "transfer");
  EXPECT_TRUE(with.back().absolute);
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

// Every form's terms and sum at three host times, by hand from its DESIGN
// equation on two_way: compute 500 (replay 530, no_speedup 1000), collectives
// 60; host_floor adds the host time, max_form only what exceeds the compute.
TEST(ModelForms, EveryFormsTermsAndSumByHand) {
  struct Case {
    const char* form;
    double host_us, compute_us, counted_host_us, t_step_us;
  };
  const Case cases[] = {
      {"ideal", 0, 500, 0, 560},          {"ideal", 300, 500, 0, 560},         {"ideal", 700, 500, 0, 560},
      {"host_floor", 0, 500, 0, 560},     {"host_floor", 300, 500, 300, 860},  {"host_floor", 700, 500, 700, 1260},
      {"max_form", 0, 500, 0, 560},       {"max_form", 300, 500, 0, 560},      {"max_form", 700, 500, 200, 760},
      {"replay", 0, 530, 0, 590},         {"replay", 300, 530, 0, 590},        {"replay", 700, 530, 0, 590},
      {"no_speedup", 0, 1000, 0, 1060},   {"no_speedup", 300, 1000, 0, 1060},  {"no_speedup", 700, 1000, 0, 1060},
  };
  ASSERT_EQ(std::size(cases), 3 * model_forms().size());
  for (const Case& c : cases) {
    const Prediction p = form_named(c.form).predict(two_way(c.host_us));
    EXPECT_DOUBLE_EQ(p.terms.compute_us, c.compute_us) << c.form << " host " << c.host_us;
    EXPECT_DOUBLE_EQ(p.terms.collective_us, 60.0) << c.form << " host " << c.host_us;
    EXPECT_DOUBLE_EQ(p.terms.host_us, c.counted_host_us) << c.form << " host " << c.host_us;
    EXPECT_DOUBLE_EQ(p.t_step_us, c.t_step_us) << c.form << " host " << c.host_us;
  }
}

}  // namespace
}  // namespace tpb
