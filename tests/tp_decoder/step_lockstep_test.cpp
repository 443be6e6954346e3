// StepOptions::lockstep: every step of a point starts at the lockstep
// communicator's barrier in place of the group's own, for a TP-k group and
// for a shard replay (no group), and a point without it keeps the group's.
#include <gtest/gtest.h>

#include "loopback_communicator.hpp"
#include "test_configs.hpp"
#include "tp_decoder/cpu/cpu_backend.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {
namespace {

using test::CallLog;
using test::LoopbackCommunicator;

StepOptions few_steps() {
  StepOptions options;
  options.warmup = 1;
  options.iters = 3;
  return options;
}

TEST(StepLockstep, EveryStepOfAGroupStartsAtTheLockstepBarrier) {
  const ModelConfig config = test::shipped_config("tiny-llama");
  const std::unique_ptr<Backend> backend = make_cpu_backend();
  CallLog log;
  LoopbackCommunicator group(2, log), world(4, log);
  StepOptions options = few_steps();
  options.lockstep = &world;
  run_step_point(*backend, &group, config, StepPoint{2, 2, 8}, options);
  EXPECT_EQ(world.barriers(), options.warmup + options.iters);
  EXPECT_EQ(group.barriers(), 0);  // the world's barrier holds the group's ranks too
}

TEST(StepLockstep, AReplayWithoutAGroupStartsEveryStepTogetherToo) {
  const ModelConfig config = test::shipped_config("tiny-llama");
  const std::unique_ptr<Backend> backend = make_cpu_backend();
  CallLog log;
  LoopbackCommunicator world(2, log);
  StepOptions options = few_steps();
  options.lockstep = &world;
  run_step_point(*backend, nullptr, config, StepPoint{2, 2, 8}, options);
  EXPECT_EQ(world.barriers(), options.warmup + options.iters);
}

TEST(StepLockstep, WithoutItEachStepStartsAtItsGroupsBarrier) {
  const ModelConfig config = test::shipped_config("tiny-llama");
  const std::unique_ptr<Backend> backend = make_cpu_backend();
  CallLog log;
  LoopbackCommunicator group(2, log);
  const StepOptions options = few_steps();
  run_step_point(*backend, &group, config, StepPoint{2, 2, 8}, options);
  EXPECT_EQ(group.barriers(), options.warmup + options.iters);
}

}  // namespace
}  // namespace tpb
