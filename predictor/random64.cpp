#include "predictor/random64.hpp"

#include "common/error.hpp"

namespace tpb {

std::uint64_t SplitMix64::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t uniform_below(SplitMix64& rng, std::uint64_t bound) {
  TPB_CHECK(bound > 0, "uniform_below needs a positive bound");
  // 2^64 mod bound, computed without 128-bit arithmetic: (2^64 - bound) mod bound.
  const std::uint64_t rejected = (0 - bound) % bound;
  std::uint64_t draw = rng.next();
  while (draw < rejected) draw = rng.next();
  return draw % bound;
}

}  // namespace tpb
