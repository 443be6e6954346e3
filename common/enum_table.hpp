#pragma once
// A table that lists an enum's values with their names, checked at compile
// time: its length is the enum's count only when it lists the values 0, 1, ...
// in order and ends at the last one. C++17-clean: included by .cu files.
#include <cstddef>
#include <utility>

namespace tpb {

template <typename Enum, std::size_t N>
constexpr bool lists_enum_in_order(const std::pair<Enum, const char*> (&table)[N], Enum last) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].first) != i) return false;
  return table[N - 1].first == last;
}

}  // namespace tpb
