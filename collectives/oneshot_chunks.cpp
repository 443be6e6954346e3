#include "collectives/oneshot_chunks.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {

void require_oneshot_capacity(std::size_t capacity_bytes) {
  if (capacity_bytes == 0 || capacity_bytes % 64 != 0)
    throw UsageError(fmt::format("one-shot capacity: {} bytes is not a positive multiple of 64", capacity_bytes));
}

}  // namespace tpb
