#pragma once
// A fixed 64-bit generator, SplitMix64 (Steele, Lea & Flood, OOPSLA 2014),
// written out here so that one seed gives the same stream on every platform
// and standard library: a study's visiting order is drawn from it and must
// replay exactly from the seed sealed in the registration.
#include <cstdint>

namespace tpb {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();

 private:
  std::uint64_t state_;
};

// Uniform integer in [0, bound), bound > 0. Draws falling in the short top
// range that does not fill a whole multiple of `bound` are rejected, so the
// result has no modulo bias and depends on integer arithmetic only.
std::uint64_t uniform_below(SplitMix64& rng, std::uint64_t bound);

}  // namespace tpb
