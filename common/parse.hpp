#pragma once
// Parsers for command-line values. Each throws tpb::UsageError with a one-line
// message naming the flag, the bad value and what would be valid.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpb {

// `text` as one decimal number in T's range ("-" only for a signed T; no "+",
// spaces or trailing characters); nullopt otherwise.
template <typename T>
std::optional<T> whole_number(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "8", "64K", "16M", "1G" -> bytes. Suffixes are powers of 1024, as in nccl-tests.
std::uint64_t parse_bytes(std::string_view flag, std::string_view text);

// A whole number >= min_value ("--iters", "20", 1).
long long parse_integer(std::string_view flag, std::string_view text, long long min_value);

// "1,2,4" -> {1,2,4}; every element >= min_value, no duplicates, not empty.
std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min_value);

// Human-readable byte size: 8 B, 64 KiB, 16 MiB (exact when a power of 1024 divides it).
std::string format_bytes(std::uint64_t bytes);

}  // namespace tpb
