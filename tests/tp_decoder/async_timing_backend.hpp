#pragma once
// A CPU backend that presents itself as asynchronous, like the CUDA one: it
// says its operations may still run after their calls return, so per-operation
// timestamps are taken only when profiling. Lets the CPU-only build exercise
// the paths a GPU study takes. Every call is forwarded to the real CPU backend.
#include <memory>
#include <string>
#include <utility>

#include "delegating_backend.hpp"

namespace tpb::test {

class AsyncTimingBackend final : public DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;

  int events_recorded() const { return events_recorded_; }

  std::string device_description() const override {
    return "async-timing " + DelegatingBackend::device_description();
  }
  bool host_synchronous() const override { return false; }
  void record_event(EventHandle event) override {
    ++events_recorded_;
    DelegatingBackend::record_event(event);
  }

 private:
  int events_recorded_ = 0;
};

}  // namespace tpb::test
