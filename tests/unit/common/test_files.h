// Test helper: writes a file under a directory private to the running test and returns its path.
#ifndef FEDMF_TESTS_UNIT_COMMON_TEST_FILES_H_
#define FEDMF_TESTS_UNIT_COMMON_TEST_FILES_H_

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace fedmf::testing {

// Directory <TempDir>/<suite>.<test>/, created empty on first use in each test.
inline std::string TestDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    absl::StrCat(info->test_suite_name(), ".", info->name());
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string WriteTestFile(absl::string_view name, absl::string_view contents) {
  const std::string path = absl::StrCat(TestDir(), "/", name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << path;
  return path;
}

}  // namespace fedmf::testing

#endif  // FEDMF_TESTS_UNIT_COMMON_TEST_FILES_H_
