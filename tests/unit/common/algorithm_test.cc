#include "common/algorithms/algorithm.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

TEST(AlgorithmTest, AddModPow2WrapsAtTheModulus) {
  std::vector<uint64_t> sum = {5, 7, 0};
  ASSERT_TRUE(AddModPow2(std::vector<uint64_t>{3, 1, 7}, 3, absl::MakeSpan(sum)).ok());
  // (5 + 3) mod 8 = 0, (7 + 1) mod 8 = 0, 7.
  EXPECT_THAT(sum, testing::ElementsAre(0, 0, 7));
}

TEST(AlgorithmTest, AddModPow2RejectsBadInput) {
  std::vector<uint64_t> sum(2, 0);
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{1}, 3, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{8, 0}, 3, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{0, 0}, 0, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{0, 0}, 63, absl::MakeSpan(sum)).ok());
}

TEST(AlgorithmTest, CheckVectorEnforcesLengthAndClientBits) {
  v1::RoundPlan plan;
  plan.set_length(2);
  plan.set_bits(7);
  plan.set_client_bits(2);
  EXPECT_TRUE(CheckVector(plan, std::vector<uint64_t>{3, 0}).ok());
  EXPECT_FALSE(CheckVector(plan, std::vector<uint64_t>{4, 0}).ok());
  EXPECT_FALSE(CheckVector(plan, std::vector<uint64_t>{1}).ok());
  plan.set_client_bits(0);
  EXPECT_FALSE(CheckVector(plan, std::vector<uint64_t>{0, 0}).ok());
}

}  // namespace
}  // namespace fedmf::algorithms
