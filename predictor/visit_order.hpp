#pragma once
// The order in which a study visits its conditions, round by round. Drawn by
// Fisher–Yates from SplitMix64, so the order is a pure function of the sealed
// seed and the same on every platform; and, where memory forces conditions
// into blocks, the A-B-B-A alternation of those blocks across rounds.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "predictor/random64.hpp"

namespace tpb {

// A uniformly random permutation of 0..n-1 (Fisher–Yates, Durstenfeld's
// in-place form: position i swaps with a uniform j in [0, i]).
std::vector<std::size_t> fisher_yates_order(std::size_t n, SplitMix64& rng);

// One permutation of the `conditions` per round, rounds drawn in sequence
// from one generator seeded with `seed`: round r's order depends only on
// (seed, r, conditions).
std::vector<std::vector<std::size_t>> round_visit_orders(std::size_t conditions, int rounds, std::uint64_t seed);

// A-B-B-A: the order of `blocks` memory blocks in round `round` (0-based):
// forward in even rounds, reversed in odd ones. Over each pair of rounds
// every block's positions add up to the same total (2·blocks − 1), so a
// drift linear in time adds the same amount to every block's mean.
std::vector<std::size_t> abba_block_order(std::size_t blocks, int round);

// One order per round when memory forces conditions into blocks (condition i
// belongs to block_of[i], blocks numbered 0..B−1): each round visits the
// blocks in A-B-B-A order (abba_block_order), every block's conditions
// together, shuffled within the block by Fisher–Yates from one generator
// seeded with `seed` (drawn block by block, round by round).
std::vector<std::vector<std::size_t>> blocked_round_orders(const std::vector<std::size_t>& block_of, int rounds,
                                                           std::uint64_t seed);

}  // namespace tpb
