#pragma once
// Host-side encoding of the small whole numbers the sweep uses as data, in
// every datatype the communicators carry (float32, bfloat16, float16). The
// values are chosen so that every partial sum is exact in the datatype, so a
// correct reduction gives the same bits in any order and a check can demand
// equality instead of a tolerance.
#include <cstddef>
#include <cstdint>

#include "collectives/communicator.hpp"

namespace tpb {

// Largest integer N such that every integer in [0, N] is exact in `type`:
// 2^24 (float32), 2^8 (bfloat16, 8 significant bits), 2^11 (float16).
std::int64_t exact_integer_limit(DataType type);

// Writes `value` (an exact integer, possibly negative, |value| <= the limit) as element `index` of `buffer`.
void store_element(void* buffer, std::size_t index, DataType type, double value);
// Reads element `index` of `buffer` back as a double (exact for every finite value).
double load_element(const void* buffer, std::size_t index, DataType type);

}  // namespace tpb
