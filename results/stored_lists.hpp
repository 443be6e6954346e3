#pragma once
// Per-cell figures as the results files store them: one list per figure, in
// the cells' order, and an error in ln as the percent it stands for.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tpb {

// Per item in order, `f` of it: the values of one stored list.
template <typename Item, typename F>
auto column(const std::vector<Item>& items, F f) {
  std::vector<std::decay_t<decltype(f(items.front()))>> out;
  for (const Item& item : items) out.push_back(f(item));
  return out;
}

// Per item, its `member` as stored: an integer as int64, a number as double.
template <typename Item, typename T>
auto member_column(const std::vector<Item>& items, T Item::*member) {
  using Stored = std::conditional_t<std::is_integral_v<T>, std::int64_t, double>;
  return column(items, [&](const Item& item) { return static_cast<Stored>(item.*member); });
}

// (exp(x) − 1) × 100: a log ratio x as a percent error.
inline double pct_of(double log_value) { return std::expm1(log_value) * 100.0; }

}  // namespace tpb
