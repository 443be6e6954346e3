#pragma once
// Waiting for a stream while watching the communicator's asynchronous errors,
// as nccl-tests' testStreamSynchronize does: a peer that died or a network
// fault ends the wait with the library's own reason, instead of a hang that
// only the watchdog ends, with no word from the library. Free of CUDA and NCCL
// types so that the loop is tested on CPU with fakes.
#include <optional>
#include <string>

#include "common/error.hpp"

namespace tpb {

// A communicator's asynchronous failure: the library's code and its reason.
struct AsyncFailure {
  long long code = 0;
  std::string reason;
};

// Polls `stream_done()` (true once everything on the stream has finished; it
// throws on a stream error) until it is true. Between polls asks
// `async_error()` (std::optional<AsyncFailure>); on a failure calls `abort()`
// once, so that the stream and the peers stop waiting on the broken
// communicator, and throws Error naming `library` and the reason. Spins
// without sleeping: a sleep would add its length to every timed wait.
template <class StreamDone, class AsyncError, class Abort>
void wait_watching_async_errors(const char* library, StreamDone stream_done, AsyncError async_error, Abort abort) {
  while (!stream_done()) {
    const std::optional<AsyncFailure> failure = async_error();
    if (!failure) continue;
    abort();
    throw_error(library, failure->code, "communicator failed while waiting for its stream, aborted it: " + failure->reason,
                __FILE__, __LINE__);
  }
}

}  // namespace tpb
