// The wait that watches a communicator's asynchronous errors (NCCL's
// ncclCommGetAsyncError in the real one), driven by fakes whose truth is
// known: a stream that finishes after n polls, an error that appears after m.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "collectives/stream_wait.hpp"
#include "common/error.hpp"

namespace tpb {
namespace {

struct FakeWait {
  int done_after = 0;   // polls until the stream reports done (0: never)
  int fail_after = 0;   // error checks until the communicator reports a failure (0: never)
  int polls = 0;
  int checks = 0;
  int aborts = 0;

  void run() {
    wait_watching_async_errors(
        "NCCL", [this] { return ++polls == done_after; },
        [this]() -> std::optional<AsyncFailure> {
          if (++checks != fail_after) return std::nullopt;
          return AsyncFailure{6, "remote process exited or there was a network error"};
        },
        [this] { ++aborts; });
  }
};

TEST(StreamWait, ReturnsWhenTheStreamIsDoneWithoutAborting) {
  FakeWait wait{5, 0};
  wait.run();
  EXPECT_EQ(wait.polls, 5);
  EXPECT_EQ(wait.checks, 4);  // between polls only
  EXPECT_EQ(wait.aborts, 0);
}

TEST(StreamWait, AFinishedStreamIsNotCheckedForErrors) {
  FakeWait wait{1, 1};
  wait.run();
  EXPECT_EQ(wait.checks, 0);
  EXPECT_EQ(wait.aborts, 0);
}

// A stream that never finishes (a dead peer): the error ends the wait, the
// communicator is aborted once, and the error names the library's reason.
TEST(StreamWait, AnAsyncErrorAbortsOnceAndNamesTheReason) {
  FakeWait wait{0, 3};
  try {
    wait.run();
    FAIL() << "the wait returned although the communicator failed";
  } catch (const Error& e) {
    EXPECT_EQ(e.library(), "NCCL");
    EXPECT_EQ(e.code(), 6);
    EXPECT_NE(e.message().find("remote process exited or there was a network error"), std::string::npos);
    EXPECT_NE(e.message().find("aborted"), std::string::npos);
  }
  EXPECT_EQ(wait.aborts, 1);
  EXPECT_EQ(wait.polls, 3);
}

TEST(StreamWait, AStreamErrorPropagatesWithoutAbort) {
  int aborts = 0;
  EXPECT_THROW(wait_watching_async_errors(
                   "NCCL", []() -> bool { throw std::runtime_error("illegal address"); },
                   []() -> std::optional<AsyncFailure> { return std::nullopt; }, [&aborts] { ++aborts; }),
               std::runtime_error);
  EXPECT_EQ(aborts, 0);
}

}  // namespace
}  // namespace tpb
