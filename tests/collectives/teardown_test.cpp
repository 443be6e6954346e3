// The NCCL communicator's teardown rule (collectives/teardown.hpp), without
// NCCL: destroy on a normal exit, abort while an exception unwinds.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "collectives/teardown.hpp"

namespace tpb {
namespace {

// Records, when destroyed, what its owner's destructor would do.
class Recorder {
 public:
  explicit Recorder(std::optional<Teardown>* seen) : seen_(seen) {}
  ~Recorder() { *seen_ = watch_.on_destruction(); }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

 private:
  std::optional<Teardown>* seen_;
  TeardownWatch watch_;
};

TEST(Teardown, DestroysOnANormalExit) {
  std::optional<Teardown> seen;
  { const Recorder recorder(&seen); }
  EXPECT_EQ(seen, Teardown::destroy);
}

TEST(Teardown, AbortsWhileAnExceptionUnwinds) {
  std::optional<Teardown> seen;
  try {
    const Recorder recorder(&seen);
    throw std::runtime_error("a peer died");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(seen, Teardown::abort);
}

// Opened inside a catch block (one exception already in flight) and left
// normally: still an orderly destroy.
TEST(Teardown, DestroysWhenOpenedAndClosedInsideAHandler) {
  std::optional<Teardown> seen;
  try {
    throw std::runtime_error("handled");
  } catch (const std::runtime_error&) {
    const Recorder recorder(&seen);
  }
  EXPECT_EQ(seen, Teardown::destroy);
}

}  // namespace
}  // namespace tpb
