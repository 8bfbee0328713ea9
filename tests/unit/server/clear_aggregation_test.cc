#include "server/clear_aggregation.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wire/chunking.h"
#include "wire/clear_upload.h"

namespace fedmf::server {
namespace {

using algorithms::ContributionVector;
using ::testing::HasSubstr;

// Vectors of 3 values in Z_{2^4}, each value < 2^3.
v1::RoundPlan Plan() {
  v1::RoundPlan p;
  p.set_length(3);
  p.set_bits(4);
  p.set_client_bits(3);
  p.set_combination(v1::COMBINATION_CLEAR);
  p.set_min_contributors(1);
  p.set_max_contributors(3);
  return p;
}

// Participant `id`'s upload of `vector` in round 0, as the client core builds it.
v1::ClearUpload Upload(uint32_t id, const ContributionVector& vector) {
  return wire::ToClearUpload({0, 0}, id, vector);
}
v1::ClearUpload Dense(uint32_t id, std::vector<uint64_t> values) {
  return Upload(id, ContributionVector::Dense(std::move(values)));
}

TEST(ClearAggregationTest, AddsUploadsModTwoToTheBits) {
  ClearAggregation a(Plan(), {1, 2, 3});
  ASSERT_TRUE(a.Accept(Dense(1, {7, 1, 0})).ok());
  ASSERT_TRUE(a.Accept(Dense(3, {7, 2, 5})).ok());
  EXPECT_FALSE(a.Complete());
  ASSERT_TRUE(a.Accept(Dense(2, {7, 0, 6})).ok());
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributors(), 3);
  // 21 mod 16 = 5, 3, 11.
  EXPECT_EQ(a.sum(), (std::vector<uint64_t>{5, 3, 11}));
}

// A refused upload drops its participant: nobody waits for it, and it cannot try again.
TEST(ClearAggregationTest, RefusesStrangersRepeatsAndMisfitVectors) {
  ClearAggregation a(Plan(), {1, 2, 3, 4});
  EXPECT_EQ(a.Accept(Dense(9, {1, 1, 1})).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.Accept(Dense(2, {1, 1})).code(), absl::StatusCode::kInvalidArgument);     // length
  EXPECT_EQ(a.Accept(Dense(3, {8, 0, 0})).code(), absl::StatusCode::kInvalidArgument);  // >= 2^3
  EXPECT_EQ(a.Accept(Dense(3, {1, 1, 1})).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a.Accept(Dense(1, {1, 1, 1})).ok());
  EXPECT_EQ(a.Accept(Dense(1, {1, 1, 1})).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.sum(), (std::vector<uint64_t>{1, 1, 1}));  // refusals left it unchanged
  EXPECT_FALSE(a.Complete());                            // participant 4 may still upload
  EXPECT_FALSE(a.MarkDropped(2));                        // already dropped by its refusal
  EXPECT_TRUE(a.MarkDropped(4));
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributor_ids(), (std::vector<uint32_t>{1}));
}

TEST(ClearAggregationTest, DroppedParticipantsCompleteTheRoundWithoutUploading) {
  ClearAggregation a(Plan(), {1, 2});
  ASSERT_TRUE(a.Accept(Dense(1, {1, 2, 3})).ok());
  a.MarkDropped(2);
  a.MarkDropped(1);  // already uploaded: stays counted
  a.MarkDropped(7);  // not invited: ignored
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributors(), 1);
  EXPECT_EQ(a.Accept(Dense(2, {1, 1, 1})).code(), absl::StatusCode::kFailedPrecondition);
}

// Sparse and dense uploads mix in one sum; through the wire bytes, as the coordinator gets them.
TEST(ClearAggregationTest, AddsSparseUploadsAtTheirCoordinates) {
  ClearAggregation a(Plan(), {1, 2, 3});
  for (const v1::ClearUpload& upload :
       {Upload(1, ContributionVector::Sparse({0, 2}, {7, 6})), Dense(2, {7, 1, 5}),
        Upload(3, ContributionVector::Sparse({}, {}))}) {
    v1::ClientMessage sent, received;
    *sent.mutable_clear_upload() = upload;
    ASSERT_TRUE(received.ParseFromString(sent.SerializeAsString()));
    ASSERT_TRUE(a.Accept(received.clear_upload()).ok());
  }
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributors(), 3);
  // 14 mod 16, 1, 11.
  EXPECT_EQ(a.sum(), (std::vector<uint64_t>{14, 1, 11}));
}

// Every way a sparse upload can be malformed is refused with a reason, leaving the sum as it was.
TEST(ClearAggregationTest, RefusesMalformedSparseUploads) {
  struct Case {
    const char* what;
    v1::ClearUpload upload;
    std::string reason;
  };
  v1::ClearUpload dense_with_indices = Dense(1, {1, 1, 1});
  dense_with_indices.add_indices(0);
  const std::vector<Case> cases = {
      {"unsorted", Upload(1, ContributionVector::Sparse({2, 0}, {1, 1})), "indices must increase"},
      {"duplicate", Upload(1, ContributionVector::Sparse({1, 1}, {1, 1})), "repeats index 0"},
      {"out of range", Upload(1, ContributionVector::Sparse({3}, {1})), "is not below the length"},
      {"count mismatch", Upload(1, ContributionVector::Sparse({0, 1}, {1})),
       "has 2 indices but 1 values"},
      {"value too large", Upload(1, ContributionVector::Sparse({1}, {8})), "is not below 2^3"},
      {"dense with indices", dense_with_indices, "dense clear upload carries 1 indices"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ClearAggregation a(Plan(), {1, 2});
    const absl::Status s = a.Accept(c.upload);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(c.reason));
    EXPECT_EQ(a.sum(), (std::vector<uint64_t>{0, 0, 0}));
    EXPECT_EQ(a.contributors(), 0);
    // Nothing of the refused upload was kept; the others' uploads still count.
    ASSERT_TRUE(a.Accept(Upload(2, ContributionVector::Sparse({1}, {2}))).ok());
    EXPECT_EQ(a.sum(), (std::vector<uint64_t>{0, 2, 0}));
    EXPECT_TRUE(a.Complete());
  }
}

// A sparse upload larger than the chunk size is split and reassembled like any client message,
// then added sparsely.
TEST(ClearAggregationTest, ALargeSparseUploadArrivesInChunks) {
  v1::RoundPlan plan = Plan();
  plan.set_length(uint64_t{1} << 22);
  plan.set_bits(12);
  plan.set_client_bits(8);
  std::vector<uint64_t> indices, values;
  for (uint64_t j = 5; j < plan.length(); j += 997) {
    indices.push_back(j);
    values.push_back(j % 256);
  }
  const ContributionVector vector = ContributionVector::Sparse(indices, values);
  v1::ClientMessage message;
  *message.mutable_clear_upload() = Upload(1, vector);
  const std::vector<v1::ClientMessage> chunks = wire::Split(message, 1024);
  ASSERT_GT(chunks.size(), 10u);
  wire::Reassembler<v1::ClientMessage> reassembler;
  std::optional<wire::Reassembler<v1::ClientMessage>::Complete> complete;
  for (const v1::ClientMessage& chunk : chunks) {
    absl::StatusOr<std::optional<wire::Reassembler<v1::ClientMessage>::Complete>> added =
        reassembler.Add(chunk);
    ASSERT_TRUE(added.ok()) << added.status();
    if (added->has_value()) complete = std::move(*added);
  }
  ASSERT_TRUE(complete.has_value());
  ClearAggregation a(plan, {1});
  ASSERT_TRUE(a.Accept(complete->message.clear_upload()).ok());
  EXPECT_EQ(a.sum(), vector.Densify(plan.length()).value());
}

}  // namespace
}  // namespace fedmf::server
