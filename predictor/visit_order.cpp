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

}  // namespace tpb
