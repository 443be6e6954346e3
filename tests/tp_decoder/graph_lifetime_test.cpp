// A captured step graph must be gone before the group's communicator is
// destroyed: NCCL's ncclCommDestroy waits until every graph that captured the
// communicator has been freed, so a graph kept until the next capture or the
// backend's destructor hangs `step --graph` at k >= 2. Checked on CPU with a
// backend that runs the CPU operations but records its graph calls, and a
// loopback communicator (every peer mirrors this rank) that records when it
// is destroyed, both writing into one call log.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "delegating_backend.hpp"
#include "loopback_communicator.hpp"
#include "test_configs.hpp"
#include "tp_decoder/cpu/cpu_backend.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {
namespace {

using test::CallLog;
using test::LoopbackCommunicator;

// The CPU backend's operations; graphs are pretend (capture runs the ops,
// a launch does nothing) and only their order is recorded.
class GraphRecordingBackend final : public test::DelegatingBackend {
 public:
  explicit GraphRecordingBackend(CallLog& log) : DelegatingBackend(make_cpu_backend()), log_(log) {}

  std::string name() const override { return "graph-recording"; }
  void capture_begin() override { log_.push_back("capture_begin"); }
  void capture_end() override {
    log_.push_back("capture_end");
    held_ = true;
  }
  void graph_launch() override {
    TPB_CHECK(held_, "graph_launch without a captured graph");
    ++launches_;
  }
  void graph_release() noexcept override {
    if (held_) log_.push_back("graph_release");
    held_ = false;
  }

  int launches() const { return launches_; }

 private:
  CallLog& log_;
  bool held_ = false;
  int launches_ = 0;
};

StepOptions graph_options() {
  StepOptions options;
  options.graph = true;
  options.warmup = 1;
  options.iters = 3;
  return options;
}

std::ptrdiff_t position(const CallLog& log, const std::string& call) {
  const auto it = std::find(log.begin(), log.end(), call);
  return it == log.end() ? -1 : it - log.begin();
}

class GraphLifetime : public ::testing::TestWithParam<int> {};

// The order step, measure and the study follow: a group per k, one point run
// on it, then the group destroyed while the backend lives on.
TEST_P(GraphLifetime, GraphIsReleasedBeforeTheGroupIsDestroyed) {
  const int k = GetParam();
  const ModelConfig config = test::shipped_config("tiny-llama");
  CallLog log;
  GraphRecordingBackend backend(log);
  const StepOptions options = graph_options();
  int waits = 0;
  {
    LoopbackCommunicator group(k, log);
    run_step_point(backend, &group, config, StepPoint{k, 2, 16}, options);
    waits = group.waits();
  }
  EXPECT_EQ(log, (CallLog{"capture_begin", "capture_end", "graph_release", "communicator_destroyed"}));
  EXPECT_EQ(backend.launches(), options.warmup + options.iters);
  // The eager step before the capture and every replay are waited for through
  // the communicator, the one that can poll its own errors. A group of one
  // issues no collective, so its steps are waited for on the backend.
  EXPECT_EQ(waits, k > 1 ? 1 + options.warmup + options.iters : 0);
}

// A failure mid-point (a lost peer while waiting) unwinds through the same
// release; at k = 1 there is no peer, and the point's own end releases it.
TEST_P(GraphLifetime, GraphIsReleasedWhenThePointFails) {
  const int k = GetParam();
  const ModelConfig config = test::shipped_config("tiny-llama");
  CallLog log;
  GraphRecordingBackend backend(log);
  {
    LoopbackCommunicator group(k, log);
    group.fail_at_wait(3);  // the second replay
    if (k == 1) {  // a group of one is never waited on: no peer to lose, and the point runs through
      run_step_point(backend, &group, config, StepPoint{k, 1, 8}, graph_options());
      EXPECT_EQ(group.waits(), 0);
    } else {
      try {
        run_step_point(backend, &group, config, StepPoint{k, 1, 8}, graph_options());
        ADD_FAILURE() << "the point ran on although the wait failed";
      } catch (const Error& e) {
        EXPECT_EQ(e.message(), "peer lost");
      }
      EXPECT_EQ(backend.launches(), 2);
    }
  }
  EXPECT_LT(position(log, "capture_end"), position(log, "graph_release"));
  EXPECT_LT(position(log, "graph_release"), position(log, "communicator_destroyed"));
  EXPECT_GE(position(log, "graph_release"), 0);
}

INSTANTIATE_TEST_SUITE_P(TpDegrees, GraphLifetime, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::string("k").append(std::to_string(p.param));
                         });

}  // namespace
}  // namespace tpb
