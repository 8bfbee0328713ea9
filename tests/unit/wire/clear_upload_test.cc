#include "wire/clear_upload.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::wire {
namespace {

using algorithms::ContributionVector;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Through the wire bytes and back.
ContributionVector RoundTrip(const ContributionVector& vector) {
  v1::ClearUpload parsed;
  EXPECT_TRUE(parsed.ParseFromString(ToClearUpload({7, 0}, 2, vector).SerializeAsString()));
  EXPECT_EQ(parsed.participant_id(), 2u);
  EXPECT_EQ(parsed.round(), 7);
  return FromClearUpload(parsed).value();
}

TEST(ClearUploadTest, DenseVectorsKeepTheDenseForm) {
  const v1::ClearUpload upload = ToClearUpload({7, 0}, 2, ContributionVector::Dense({3, 0, 5}));
  EXPECT_FALSE(upload.sparse());
  EXPECT_THAT(upload.indices(), IsEmpty());
  EXPECT_THAT(upload.values(), ElementsAre(3, 0, 5));
  EXPECT_EQ(RoundTrip(ContributionVector::Dense({3, 0, 5})), ContributionVector::Dense({3, 0, 5}));
}

TEST(ClearUploadTest, SparseVectorsCarryTheirIndices) {
  const ContributionVector v = ContributionVector::Sparse({4, 90}, {1, 6});
  const v1::ClearUpload upload = ToClearUpload({7, 0}, 2, v);
  EXPECT_TRUE(upload.sparse());
  EXPECT_THAT(upload.indices(), ElementsAre(4, 90));
  EXPECT_THAT(upload.values(), ElementsAre(1, 6));
  EXPECT_EQ(RoundTrip(v), v);
  // No non-zero at all is still a sparse vector (all zeros), not an empty dense one.
  EXPECT_EQ(RoundTrip(ContributionVector::Sparse({}, {})), ContributionVector::Sparse({}, {}));
}

// The wire form can say what the type cannot: indices on a dense upload. Everything else (order,
// range, counts, value bounds) is the plan's check, algorithms::CheckVector.
TEST(ClearUploadTest, ADenseUploadWithIndicesIsRefused) {
  v1::ClearUpload upload;
  upload.add_values(1);
  upload.add_indices(0);
  const absl::Status s = FromClearUpload(upload).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("dense clear upload carries 1 indices"));
  upload.set_sparse(true);
  EXPECT_EQ(FromClearUpload(upload).value(), ContributionVector::Sparse({0}, {1}));
}

}  // namespace
}  // namespace fedmf::wire
