// read_file: a file's exact bytes (binary, empty included), nothing for a file
// that cannot be opened.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/read_file.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

TEST(ReadFile, ReturnsTheExactBytesAndNothingForAMissingFile) {
  const fs::path path = fs::temp_directory_path() / "tpb_read_file_test.bin";
  const std::string bytes("line one\r\nline two\0 after a NUL", 31);
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(read_file(path), bytes);
  std::ofstream(path, std::ios::binary | std::ios::trunc).close();
  EXPECT_EQ(read_file(path), std::string());
  fs::remove(path);
  EXPECT_EQ(read_file(path), std::nullopt);
}

}  // namespace
}  // namespace tpb
