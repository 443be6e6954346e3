#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "common/error.hpp"
#include "results/h5_file.hpp"

namespace tpb {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".h5")).string();
}

TEST(H5File, DatasetsAndAttributesRoundTrip) {
  const std::string path = temp_path("tpb_h5_roundtrip");
  {
    H5File file(path, H5Mode::create_overwrite);
    file.write_dataset("/a/b/values", std::vector<double>{1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, {2, 3});
    file.write_dataset("/a/counts", std::vector<std::int64_t>{7, 0, -1}, {3});
    file.write_strings("/a/names", {"alpha", "beta"});
    H5Handle group = file.group("/a");
    write_attribute(group.id(), "label", std::string("hello"));
    write_attribute(group.id(), "n", std::int64_t{42});
    write_attribute(group.id(), "x", 0.25);
    write_attribute(group.id(), "list", std::vector<std::string>{"p", "q"});
    write_attribute(group.id(), "empty_list", std::vector<std::string>{});
    write_attribute(group.id(), "n", std::int64_t{43});  // replaced, not duplicated
  }
  H5File file(path, H5Mode::read_only);
  std::vector<std::uint64_t> dims;
  EXPECT_EQ(file.read_doubles("/a/b/values", &dims), (std::vector<double>{1.5, 2.5, 3.5, 4.5, 5.5, 6.5}));
  EXPECT_EQ(dims, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(file.read_integers("/a/counts"), (std::vector<std::int64_t>{7, 0, -1}));
  EXPECT_EQ(file.read_strings("/a/names"), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(file.list("/a"), (std::vector<std::string>{"b", "counts", "names"}));
  EXPECT_TRUE(file.exists("/a/b/values"));
  EXPECT_FALSE(file.exists("/a/c/values"));
  H5Handle group = file.open_object("/a");
  EXPECT_EQ(read_string_attribute(group.id(), "label"), "hello");
  EXPECT_EQ(read_integer_attribute(group.id(), "n"), 43);
  EXPECT_DOUBLE_EQ(read_double_attribute(group.id(), "x"), 0.25);
  EXPECT_EQ(read_string_list_attribute(group.id(), "list"), (std::vector<std::string>{"p", "q"}));
  EXPECT_TRUE(read_string_list_attribute(group.id(), "empty_list").empty());
  std::remove(path.c_str());
}

TEST(H5File, CreateNewRefusesAnExistingFile) {
  const std::string path = temp_path("tpb_h5_exists");
  { H5File file(path, H5Mode::create_overwrite); }
  try {
    H5File again(path, H5Mode::create_new);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--overwrite"), std::string::npos);
  }
  std::remove(path.c_str());
}

TEST(H5File, UnwritablePathIsAUsageError) {
  EXPECT_THROW(H5File("/nonexistent-dir/x.h5", H5Mode::create_new), UsageError);
}

}  // namespace
}  // namespace tpb
