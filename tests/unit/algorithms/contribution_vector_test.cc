#include "common/algorithms/contribution_vector.h"

#include <string>
#include <vector>

#include "common/data/portable_random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ContributionVectorTest, AddModPow2WrapsAtTheModulus) {
  std::vector<uint64_t> sum = {5, 7, 0};
  ASSERT_TRUE(AddModPow2(std::vector<uint64_t>{3, 1, 7}, 3, absl::MakeSpan(sum)).ok());
  // (5 + 3) mod 8 = 0, (7 + 1) mod 8 = 0, 7.
  EXPECT_THAT(sum, ElementsAre(0, 0, 7));
}

TEST(ContributionVectorTest, AddModPow2RejectsBadInput) {
  std::vector<uint64_t> sum(2, 0);
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{1}, 3, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{8, 0}, 3, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{0, 0}, 0, absl::MakeSpan(sum)).ok());
  EXPECT_FALSE(AddModPow2(std::vector<uint64_t>{0, 0}, 63, absl::MakeSpan(sum)).ok());
}

TEST(ContributionVectorTest, CheckVectorEnforcesLengthAndClientBits) {
  v1::RoundPlan plan;
  plan.set_length(2);
  plan.set_bits(7);
  plan.set_client_bits(2);
  EXPECT_TRUE(CheckVector(plan, ContributionVector::Dense({3, 0})).ok());
  EXPECT_FALSE(CheckVector(plan, ContributionVector::Dense({4, 0})).ok());
  EXPECT_FALSE(CheckVector(plan, ContributionVector::Dense({1})).ok());
  EXPECT_TRUE(CheckVector(plan, ContributionVector::Sparse({1}, {3})).ok());
  EXPECT_FALSE(CheckVector(plan, ContributionVector::Sparse({2}, {3})).ok());
  plan.set_client_bits(0);
  EXPECT_FALSE(CheckVector(plan, ContributionVector::Dense({0, 0})).ok());
  EXPECT_FALSE(CheckVector(plan, ContributionVector::Sparse({}, {})).ok());
}

TEST(ContributionVectorTest, SparseVectorDensifiesToItsCoordinates) {
  const ContributionVector v = ContributionVector::Sparse({0, 3, 4}, {7, 1, 2});
  EXPECT_TRUE(v.is_sparse());
  EXPECT_THAT(v.Densify(6).value(), ElementsAre(7, 0, 0, 1, 2, 0));
  EXPECT_THAT(ContributionVector::Sparse({}, {}).Densify(3).value(), ElementsAre(0, 0, 0));
  EXPECT_THAT(ContributionVector::Dense({4, 5}).Densify(2).value(), ElementsAre(4, 5));
  EXPECT_NE(v, ContributionVector::Dense({7, 0, 0, 1, 2, 0}));  // same coordinates, other form
}

// Every malformed vector, with the index or value the error names. Check, Densify (structure
// only) and AddModPow2 refuse it alike; AddModPow2 leaves the sum unchanged.
TEST(ContributionVectorTest, MalformedVectorsAreRefusedNamingTheOffender) {
  struct Case {
    const char* what;
    ContributionVector vector;
    std::string message;
    bool structural;  // Densify refuses it too (not only a value bound)
  };
  const std::vector<Case> cases = {
      {"unsorted", ContributionVector::Sparse({1, 5, 3}, {1, 1, 1}),
       "sparse index 2 = 3 is below index 1 = 5", true},
      {"duplicate", ContributionVector::Sparse({1, 4, 4}, {1, 1, 1}),
       "sparse index 2 = 4 repeats index 1", true},
      {"out of range", ContributionVector::Sparse({2, 8}, {1, 1}),
       "sparse index 1 = 8 is not below the length 8", true},
      {"more indices than values", ContributionVector::Sparse({0, 1, 2}, {1, 1}),
       "sparse vector has 3 indices but 2 values", true},
      {"more values than indices", ContributionVector::Sparse({0}, {1, 1}),
       "sparse vector has 1 indices but 2 values", true},
      {"sparse value too large", ContributionVector::Sparse({0, 6}, {15, 16}),
       "sparse value 1 (index 6) = 16 is not below 2^4", false},
      {"dense length", ContributionVector::Dense(std::vector<uint64_t>(7, 0)),
       "vector has 7 values, expected 8", true},
      {"dense value too large", ContributionVector::Dense({0, 0, 0, 0, 0, 0, 0, 16}),
       "vector value 7 = 16 is not below 2^4", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const absl::Status checked = c.vector.Check(8, 4);
    EXPECT_EQ(checked.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(checked.message(), HasSubstr(c.message));
    std::vector<uint64_t> sum(8, 3);
    const absl::Status added = AddModPow2(c.vector, 4, absl::MakeSpan(sum));
    EXPECT_EQ(added.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(added.message(), HasSubstr(c.message));
    EXPECT_EQ(sum, std::vector<uint64_t>(8, 3));
    EXPECT_EQ(c.vector.Densify(8).ok(), !c.structural);
  }
  EXPECT_THAT(ContributionVector::Sparse({}, {}).Check(8, 63).message(),
              HasSubstr("bits=63 not in [1, 62]"));
}

// Adding sparse vectors equals adding their dense forms, at every density, with values near
// 2^bits so that most coordinates wrap.
TEST(ContributionVectorTest, SparseAddEqualsDenseAddOfTheDensifiedVector) {
  constexpr int kBits = 20;
  constexpr uint64_t kLength = 1000;
  data::PortableRandom random(17);
  std::vector<uint64_t> sparse_sum(kLength), dense_sum(kLength);
  for (uint64_t& s : sparse_sum) s = random.UniformInt(uint64_t{1} << kBits);
  dense_sum = sparse_sum;
  for (double density : {0.0, 0.001, 0.01, 0.1, 0.5, 1.0}) {
    for (int n = 0; n < 20; ++n) {
      std::vector<uint64_t> indices, values;
      for (uint64_t j = 0; j < kLength; ++j) {
        if (random.Uniform() >= density) continue;
        indices.push_back(j);
        values.push_back((uint64_t{1} << kBits) - 1 - random.UniformInt(8));
      }
      const ContributionVector v = ContributionVector::Sparse(indices, values);
      ASSERT_TRUE(AddModPow2(v, kBits, absl::MakeSpan(sparse_sum)).ok());
      ASSERT_TRUE(AddModPow2(v.Densify(kLength).value(), kBits, absl::MakeSpan(dense_sum)).ok());
      ASSERT_EQ(sparse_sum, dense_sum) << "density " << density << ", vector " << n;
    }
  }
}

}  // namespace
}  // namespace fedmf::algorithms
