#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/parse.hpp"

namespace tpb {
namespace {

TEST(ParseBytes, AcceptsPlainAndSuffixedSizes) {
  EXPECT_EQ(parse_bytes("-b", "8"), 8u);
  EXPECT_EQ(parse_bytes("-b", "64K"), 64u * 1024);
  EXPECT_EQ(parse_bytes("-b", "16M"), 16u << 20);
  EXPECT_EQ(parse_bytes("-b", "1G"), 1u << 30);
  EXPECT_EQ(parse_bytes("-b", "2g"), 2ull << 30);
}

TEST(ParseBytes, RejectsJunkNamingTheValue) {
  for (const char* bad : {"", "-3", "12Q", "K", "1.5M", "8 M", "99999999999999999999"}) {
    try {
      parse_bytes("--minbytes", bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--minbytes"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseInteger, EnforcesMinimum) {
  EXPECT_EQ(parse_integer("-n", "20", 1), 20);
  EXPECT_EQ(parse_integer("-w", "0", 0), 0);
  EXPECT_THROW(parse_integer("-n", "-3", 1), UsageError);
  EXPECT_THROW(parse_integer("-n", "0", 1), UsageError);
  EXPECT_THROW(parse_integer("-n", "3x", 1), UsageError);
}

TEST(ParseIntList, SplitsAndValidates) {
  EXPECT_EQ(parse_int_list("--tp", "1,2,4", 1), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_int_list("--tp", "8", 1), (std::vector<int>{8}));
  EXPECT_THROW(parse_int_list("--tp", "", 1), UsageError);
  EXPECT_THROW(parse_int_list("--tp", "1,,2", 1), UsageError);
  EXPECT_THROW(parse_int_list("--tp", "0,2", 1), UsageError);
  EXPECT_THROW(parse_int_list("--tp", "2,2", 1), UsageError);
  EXPECT_THROW(parse_int_list("--tp", "1,2,", 1), UsageError);
}

TEST(WholeNumber, TakesTheWholeTextAsOneDecimalNumber) {
  EXPECT_EQ(whole_number<std::uint64_t>("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(whole_number<long long>("-12"), -12);
  for (const char* bad : {"", "-", "-1", "+1", " 1", "1 ", "1x", "0x10", "18446744073709551616"})
    EXPECT_EQ(whole_number<std::uint64_t>(bad), std::nullopt) << "'" << bad << "'";
  EXPECT_EQ(whole_number<int>("2147483648"), std::nullopt);
}

TEST(FormatBytes, UsesTheLargestExactUnit) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(65536), "64 KiB");
  EXPECT_EQ(format_bytes(3 << 20), "3 MiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
}

}  // namespace
}  // namespace tpb
