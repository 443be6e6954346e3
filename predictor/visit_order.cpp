#include "predictor/visit_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "common/error.hpp"

namespace tpb {

std::vector<std::size_t> fisher_yates_order(std::size_t n, SplitMix64& rng) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) {
    const auto j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<std::vector<std::size_t>> round_visit_orders(std::size_t conditions, int rounds, std::uint64_t seed) {
  TPB_CHECK(rounds >= 0, fmt::format("visiting order for {} rounds", rounds));
  SplitMix64 rng(seed);
  std::vector<std::vector<std::size_t>> orders;
  orders.reserve(static_cast<std::size_t>(rounds));
  for (int r = 0; r < rounds; ++r) orders.push_back(fisher_yates_order(conditions, rng));
  return orders;
}

std::vector<std::size_t> abba_block_order(std::size_t blocks, int round) {
  TPB_CHECK(round >= 0, fmt::format("A-B-B-A order of round {}", round));
  std::vector<std::size_t> order(blocks);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

std::vector<std::vector<std::size_t>> blocked_round_orders(const std::vector<std::size_t>& block_of, int rounds,
                                                           std::uint64_t seed) {
  TPB_CHECK(rounds >= 0, fmt::format("visiting order for {} rounds", rounds));
  const std::size_t blocks = block_of.empty() ? 0 : *std::max_element(block_of.begin(), block_of.end()) + 1;
  std::vector<std::vector<std::size_t>> members(blocks);
  for (std::size_t i = 0; i < block_of.size(); ++i) members[block_of[i]].push_back(i);
  for (std::size_t b = 0; b < blocks; ++b)
    TPB_CHECK(!members[b].empty(), fmt::format("block {} of {} holds no condition", b, blocks));
  SplitMix64 rng(seed);
  std::vector<std::vector<std::size_t>> orders(static_cast<std::size_t>(rounds));
  for (int r = 0; r < rounds; ++r)
    for (const std::size_t block : abba_block_order(blocks, r))
      for (const std::size_t position : fisher_yates_order(members[block].size(), rng))
        orders[static_cast<std::size_t>(r)].push_back(members[block][position]);
  return orders;
}

}  // namespace tpb
