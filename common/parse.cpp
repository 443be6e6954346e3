#include "common/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "common/error.hpp"

namespace tpb {
namespace {

[[noreturn]] void bad_value(std::string_view flag, std::string_view text, std::string_view expected) {
  throw UsageError(fmt::format("{}: invalid value '{}' ({})", flag, text, expected));
}

// Digits only: from_chars alone would accept a leading '-' and stop at junk.
bool parse_unsigned(std::string_view digits, std::uint64_t& out) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return result.ec == std::errc{} && result.ptr == digits.data() + digits.size();
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
  std::uint64_t value = 0;
  if (!parse_unsigned(digits, value)) bad_value(flag, text, expected);
  if (value > std::numeric_limits<std::uint64_t>::max() / scale) bad_value(flag, text, "too large");
  return value * scale;
}

long long parse_integer(std::string_view flag, std::string_view text, long long min_value) {
  const std::string expected = fmt::format("expected a whole number >= {}", min_value);
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  std::uint64_t magnitude = 0;
  if (!parse_unsigned(digits, magnitude) ||
      magnitude > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
    bad_value(flag, text, expected);
  const long long value = negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
  if (value < min_value) bad_value(flag, text, expected);
  return value;
}

std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min_value) {
  const std::string expected = fmt::format("expected a comma-separated list of whole numbers >= {}", min_value);
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    std::uint64_t value = 0;
    if (!parse_unsigned(item, value) || value > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
        static_cast<int>(value) < min_value)
      bad_value(flag, text, expected);
    if (std::find(values.begin(), values.end(), static_cast<int>(value)) != values.end())
      bad_value(flag, text, fmt::format("{} is listed twice", value));
    values.push_back(static_cast<int>(value));
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
