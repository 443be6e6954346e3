// libFuzzer target for the command-line value parsers (common/parse.hpp).
// The first byte picks the parser, the rest is the text a user typed:
//   'b' parse_bytes   'i' parse_integer (min -3)   'l' parse_int_list (min 1)
// Beyond "no crash", each accepted value must round-trip through its
// canonical spelling, and a rejection must be a UsageError naming the flag.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "common/parse.hpp"

namespace {

// A broken property is a finding: abort so libFuzzer saves the input.
void require(bool property) {
  if (!property) std::abort();
}

void fuzz_bytes(std::string_view text) {
  const std::uint64_t bytes = tpb::parse_bytes("-b", text);
  require(tpb::parse_bytes("-b", std::to_string(bytes)) == bytes);
  const char suffix = text.back();
  if (suffix == 'K' || suffix == 'k') require(bytes % 1024 == 0);
  if (suffix == 'M' || suffix == 'm') require(bytes % (1024 * 1024) == 0);
}

void fuzz_integer(std::string_view text) {
  const long long value = tpb::parse_integer("-n", text, -3);
  require(value >= -3);
  require(tpb::parse_integer("-n", std::to_string(value), -3) == value);
}

void fuzz_list(std::string_view text) {
  const std::vector<int> values = tpb::parse_int_list("--tp", text, 1);
  require(!values.empty());
  std::string canonical;
  for (int v : values) {
    require(v >= 1);
    if (!canonical.empty()) canonical += ',';
    canonical += std::to_string(v);
  }
  require(tpb::parse_int_list("--tp", canonical, 1) == values);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0]) {
      case 'b': fuzz_bytes(text); break;
      case 'i': fuzz_integer(text); break;
      case 'l': fuzz_list(text); break;
      default: break;
    }
  } catch (const tpb::UsageError& error) {
    // The message names the flag first, as every usage error must.
    const std::string_view message = error.what();
    require(message.rfind("-b: ", 0) == 0 || message.rfind("-n: ", 0) == 0 || message.rfind("--tp: ", 0) == 0);
  }
  return 0;
}
