#include "common/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/error.hpp"

namespace tpb {
namespace {

[[noreturn]] void bad_value(std::string_view flag, std::string_view text, std::string_view expected) {
  throw UsageError(fmt::format("{}: invalid value '{}' ({})", flag, text, expected));
}

}  // namespace

std::uint64_t parse_bytes(std::string_view flag, std::string_view text) {
  constexpr std::string_view expected = "expected a byte count such as 8, 64K, 16M or 1G";
  if (text.empty()) bad_value(flag, text, expected);
  std::uint64_t scale = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 'K': case 'k': scale = 1ULL << 10; break;
    case 'M': case 'm': scale = 1ULL << 20; break;
    case 'G': case 'g': scale = 1ULL << 30; break;
    default: break;
  }
  if (scale != 1) digits.remove_suffix(1);
  const std::optional<std::uint64_t> value = whole_number<std::uint64_t>(digits);
  if (!value) bad_value(flag, text, expected);
  if (*value > std::numeric_limits<std::uint64_t>::max() / scale) bad_value(flag, text, "too large");
  return *value * scale;
}

long long parse_integer(std::string_view flag, std::string_view text, long long min_value) {
  const std::optional<long long> value = whole_number<long long>(text);
  if (!value || *value < min_value) bad_value(flag, text, fmt::format("expected a whole number >= {}", min_value));
  return *value;
}

std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min_value) {
  const std::string expected = fmt::format("expected a comma-separated list of whole numbers >= {}", min_value);
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::optional<int> value = whole_number<int>(item);
    if (!value || *value < min_value) bad_value(flag, text, expected);
    if (std::find(values.begin(), values.end(), *value) != values.end())
      bad_value(flag, text, fmt::format("{} is listed twice", *value));
    values.push_back(*value);
    start = comma + 1;
  }
  return values;
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int unit = 0;
  while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", bytes, units[unit]);
}

}  // namespace tpb
