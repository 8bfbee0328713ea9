// RaiseOpenFileLimit lifts the soft RLIMIT_NOFILE to the hard limit; RequireOpenFiles refuses a
// need above the hard limit with a message naming it.
#include "common/util/fd_limit.h"

#include <sys/resource.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fedmf {
namespace {

rlimit Current() {
  rlimit r{};
  EXPECT_EQ(getrlimit(RLIMIT_NOFILE, &r), 0);
  return r;
}

TEST(FdLimitTest, RaisesTheSoftLimitToTheHardLimit) {
  const rlimit before = Current();
  if (before.rlim_max < 64) GTEST_SKIP() << "hard limit below 64";
  rlimit lowered = before;
  lowered.rlim_cur = 32;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  absl::StatusOr<uint64_t> soft = RaiseOpenFileLimit();
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(*soft, static_cast<uint64_t>(before.rlim_max));
  EXPECT_EQ(Current().rlim_cur, before.rlim_max);
}

TEST(FdLimitTest, RequireAcceptsANeedWithinTheHardLimit) {
  EXPECT_TRUE(RequireOpenFiles(16, "test").ok());
}

TEST(FdLimitTest, RequireRefusesANeedAboveTheHardLimit) {
  const rlimit r = Current();
  if (r.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit";
  const absl::Status s = RequireOpenFiles(static_cast<uint64_t>(r.rlim_max) + 1, "5 streams");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(absl::StrCat("5 streams needs about ", r.rlim_max + 1)),
            absl::string_view::npos)
      << s;
  EXPECT_NE(s.message().find(absl::StrCat("hard limit (RLIMIT_NOFILE) is ", r.rlim_max)),
            absl::string_view::npos)
      << s;
}

}  // namespace
}  // namespace fedmf
