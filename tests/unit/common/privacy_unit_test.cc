#include "common/dp/privacy_unit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::HasSubstr;

TEST(PrivacyUnitTest, NamesRoundTrip) {
  for (PrivacyUnit unit : {PrivacyUnit::kUser, PrivacyUnit::kRating}) {
    EXPECT_EQ(*ParsePrivacyUnit(PrivacyUnitName(unit)), unit);
  }
  EXPECT_EQ(PrivacyUnitName(PrivacyUnit::kUser), "user");
  EXPECT_EQ(PrivacyUnitName(PrivacyUnit::kRating), "rating");
  EXPECT_THAT(ParsePrivacyUnit("item").status().message(), HasSubstr("'item'"));
  EXPECT_FALSE(ParsePrivacyUnit("User").ok());
}

// Neighbours by one rating are neighbours by one user, not the converse.
TEST(PrivacyUnitTest, AUserGuaranteeCoversARatingNotTheConverse) {
  EXPECT_TRUE(Covers(PrivacyUnit::kUser, PrivacyUnit::kUser));
  EXPECT_TRUE(Covers(PrivacyUnit::kUser, PrivacyUnit::kRating));
  EXPECT_TRUE(Covers(PrivacyUnit::kRating, PrivacyUnit::kRating));
  EXPECT_FALSE(Covers(PrivacyUnit::kRating, PrivacyUnit::kUser));
}

TEST(PrivacyUnitTest, CompositionProtectsTheSmallerUnit) {
  EXPECT_EQ(ComposedUnit(PrivacyUnit::kUser, PrivacyUnit::kUser), PrivacyUnit::kUser);
  EXPECT_EQ(ComposedUnit(PrivacyUnit::kUser, PrivacyUnit::kRating), PrivacyUnit::kRating);
  EXPECT_EQ(ComposedUnit(PrivacyUnit::kRating, PrivacyUnit::kUser), PrivacyUnit::kRating);
  EXPECT_EQ(ComposedUnit(PrivacyUnit::kRating, PrivacyUnit::kRating), PrivacyUnit::kRating);
}

}  // namespace
}  // namespace fedmf::dp
