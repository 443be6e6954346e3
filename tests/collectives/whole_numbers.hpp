#pragma once
// Inputs whose all-reduce has one right answer, shared by the CPU and CUDA
// one-shot tests: whole numbers that differ by rank, index and call, small
// enough that their sums stay far below 2^24, so that every float sum is
// exact in any order and a comparison with == finds every wrong element.
#include <cstddef>

namespace tpb::test {

inline float whole_input(int rank, std::size_t index, int call) {
  return static_cast<float>((index * 7 + static_cast<std::size_t>(rank) * 1000 + static_cast<std::size_t>(call) * 13) %
                            4093);
}

// The sum over ranks 0 .. ranks-1 of whole_input.
inline float whole_sum(int ranks, std::size_t index, int call) {
  float sum = 0.0f;
  for (int r = 0; r < ranks; ++r) sum += whole_input(r, index, call);
  return sum;
}

}  // namespace tpb::test
