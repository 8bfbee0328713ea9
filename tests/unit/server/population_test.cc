#include "server/population.h"

#include <vector>

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

TEST(FixedPopulationTest, IsEmptyUntilFrozen) {
  FixedPopulation p;
  EXPECT_FALSE(p.frozen());
  EXPECT_EQ(p.size(), 0);
  ASSERT_TRUE(p.Freeze({2, 5, 9}).ok());
  EXPECT_TRUE(p.frozen());
  EXPECT_EQ(p.members(), (std::vector<uint32_t>{2, 5, 9}));
  EXPECT_EQ(p.size(), 3);
}

TEST(FixedPopulationTest, FreezesOnce) {
  FixedPopulation p;
  ASSERT_TRUE(p.Freeze({1, 2}).ok());
  EXPECT_EQ(p.Freeze({1, 2, 3}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(p.members(), (std::vector<uint32_t>{1, 2}));
}

TEST(FixedPopulationTest, RefusesEmptyOrUnorderedMembers) {
  FixedPopulation p;
  EXPECT_EQ(p.Freeze({}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.Freeze({3, 1}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.Freeze({1, 1}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(p.frozen());
  EXPECT_EQ(FixedPopulation::Restore({4, 4}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FixedPopulation::Restore({4, 7}).value().members(), (std::vector<uint32_t>{4, 7}));
}

TEST(FixedPopulationTest, MissingMembersAreThoseNotPresent) {
  const FixedPopulation p = FixedPopulation::Restore({1, 3, 5, 7}).value();
  // Present users outside the population (late registrants) change nothing.
  const std::vector<uint32_t> present = {1, 2, 5, 8};
  EXPECT_EQ(p.Missing(present), (std::vector<uint32_t>{3, 7}));
  EXPECT_EQ(p.CountPresent(present), 2);
  EXPECT_TRUE(p.Missing({1, 3, 5, 7, 9}).empty());
  EXPECT_EQ(p.CountPresent({1, 3, 5, 7, 9}), 4);
}

TEST(FixedPopulationTest, OutsidersAreTheNonMembers) {
  const FixedPopulation p = FixedPopulation::Restore({1, 3, 5}).value();
  EXPECT_EQ(p.Outsiders(std::vector<uint32_t>{6, 3, 2}), (std::vector<uint32_t>{6, 2}));
  EXPECT_TRUE(p.Outsiders(std::vector<uint32_t>{5, 1}).empty());
}

TEST(FixedPopulationTest, LostReasonNamesTheParticipants) {
  EXPECT_EQ(PopulationLostReason(40, std::vector<uint32_t>{3}, "gone"),
            "fixed population of 40 lost 1 participant: 3 (gone); the run cannot go on with "
            "another population");
  std::vector<uint32_t> many(25);
  for (uint32_t i = 0; i < 25; ++i) many[i] = i + 1;
  const std::string reason = PopulationLostReason(40, many, "gone");
  EXPECT_NE(reason.find("lost 25 participants: 1, 2, "), std::string::npos) << reason;
  EXPECT_NE(reason.find(", 20, ... (gone)"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("21"), std::string::npos) << reason;
}

}  // namespace
}  // namespace fedmf::server
