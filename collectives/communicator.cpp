#include "collectives/communicator.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {

std::string_view to_string(MemoryKind memory) { return memory == MemoryKind::host ? "host" : "device"; }

std::unique_ptr<ReplayableWork> Communicator::capture(StreamHandle, const std::function<void()>&) {
  throw UsageError(fmt::format("--cudagraph: the {} backend cannot capture and replay calls (use --backend nccl)",
                               backend_name()));
}

}  // namespace tpb
