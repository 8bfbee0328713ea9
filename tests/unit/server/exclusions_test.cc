#include "server/exclusions.h"

#include <vector>

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

TEST(ExclusionsTest, ExcludesOnceAndFiltersCohortCandidates) {
  Exclusions exclusions;
  EXPECT_TRUE(exclusions.Exclude(4, "garbage shares"));
  EXPECT_FALSE(exclusions.Exclude(4, "again"));  // the first reason is kept
  EXPECT_TRUE(exclusions.Exclude(2, "false dealer"));
  EXPECT_TRUE(exclusions.Contains(4));
  EXPECT_FALSE(exclusions.Contains(3));
  EXPECT_EQ(exclusions.Without({1, 2, 3, 4, 5}), (std::vector<uint32_t>{1, 3, 5}));
  EXPECT_EQ(exclusions.excluded().at(4), "garbage shares");
  EXPECT_EQ(exclusions.excluded().begin()->first, 2u);
}

}  // namespace
}  // namespace fedmf::server
