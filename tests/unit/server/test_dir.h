// TestDirTest: a fixture whose test gets its own empty directory dir_ (under the test temp dir,
// named after the test), removed at the end: the state directory of the persistence tests
// (checkpoint, model store, run queue, run service).
#ifndef FEDMF_TESTS_UNIT_SERVER_TEST_DIR_H_
#define FEDMF_TESTS_UNIT_SERVER_TEST_DIR_H_

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace fedmf::server {

class TestDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::path(::testing::TempDir()) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
               .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
};

}  // namespace fedmf::server

#endif  // FEDMF_TESTS_UNIT_SERVER_TEST_DIR_H_
