#pragma once
// How a communicator is torn down when its owner is destroyed: orderly
// (ncclCommDestroy, which waits for peers) on a normal exit, abort
// (ncclCommAbort, which does not) while an exception unwinds: the peer the
// exception came from may be dead, and a destroy would wait for it until
// NCCL's timeout. Free of NCCL types, so that the rule is tested everywhere.
#include <exception>

namespace tpb {

enum class Teardown { destroy, abort };

// Record std::uncaught_exceptions() when the object opens, and ask at its
// destruction: more exceptions in flight than at the opening means this
// destructor runs during unwinding.
class TeardownWatch {
 public:
  Teardown on_destruction() const {
    return std::uncaught_exceptions() > uncaught_at_open_ ? Teardown::abort : Teardown::destroy;
  }

 private:
  int uncaught_at_open_ = std::uncaught_exceptions();
};

}  // namespace tpb
