// ChunkedUpload and UploadBudget: a declaration above the plan's bound reserves nothing, bytes are
// reserved as they arrive, a stream holds at most its share of the pool, a reassembly with too
// many repeated elements is refused unparsed, and everything is given back.
#include "server/chunked_upload.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "wire/chunking.h"

namespace fedmf::server {
namespace {

constexpr MessageBounds kBounds{.max_bytes = 1000, .max_elements = 10};

// The chunks (128 bytes each, 64 of data) of a MaskedInput of participant 1 of `packed` bytes.
std::vector<v1::ClientMessage> Chunks(size_t packed) {
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(1);
  m.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(
      std::string(packed, 'p'));
  return wire::Split(m, wire::kMinChunkBytes);
}

TEST(ChunkedUploadTest, ADeclarationAboveThePlanReservesNothing) {
  UploadBudget budget(uint64_t{2} << 30);
  ChunkedUpload upload;
  v1::ClientMessage first = Chunks(300)[0];
  first.mutable_chunk()->set_total_bytes(uint64_t{1} << 30);
  const absl::StatusOr<std::optional<ChunkedUpload::Complete>> added =
      upload.Add(first, budget, kBounds, absl::Now());
  EXPECT_EQ(added.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(added.status().message(),
            "Chunk.total_bytes 1073741824 exceeds the plan's largest message of 1000 bytes");
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_FALSE(upload.started().has_value());
}

TEST(ChunkedUploadTest, ReservesBytesAsTheyArriveAndGivesThemBack) {
  UploadBudget budget(10000);
  ChunkedUpload upload;
  const std::vector<v1::ClientMessage> chunks = Chunks(300);
  ASSERT_GT(chunks.size(), 2u);
  uint64_t data = 0;
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    ASSERT_TRUE(upload.Add(chunks[i], budget, kBounds, absl::Now()).ok());
    data += chunks[i].chunk().data().size();
    EXPECT_EQ(budget.held(), data);  // what arrived, not the declared total
  }
  absl::StatusOr<std::optional<ChunkedUpload::Complete>> whole =
      upload.Add(chunks.back(), budget, kBounds, absl::Now());
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(whole->has_value());
  EXPECT_EQ(budget.held(), chunks[0].chunk().total_bytes());
  upload.Release(budget);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(ChunkedUploadTest, DeclarationsAloneHoldNothing) {
  UploadBudget budget(1000);
  ChunkedUpload a, b;
  v1::ClientMessage first = Chunks(300)[0];
  first.mutable_chunk()->set_total_bytes(kBounds.max_bytes);  // the most the plan allows
  ASSERT_TRUE(a.Add(first, budget, kBounds, absl::Now()).ok());
  ASSERT_TRUE(b.Add(first, budget, kBounds, absl::Now()).ok());
  EXPECT_EQ(budget.held(), 2 * first.chunk().data().size());
  // A third stream's whole message still fits.
  ChunkedUpload c;
  for (const v1::ClientMessage& chunk : Chunks(300)) {
    ASSERT_TRUE(c.Add(chunk, budget, kBounds, absl::Now()).ok());
  }
  a.Abandon(budget);
  b.Abandon(budget);
  c.Release(budget);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(ChunkedUploadTest, AStreamHoldsAtMostItsShare) {
  UploadBudget budget(1000);
  budget.ShareAmong(8);  // 125 bytes a stream: two chunks of 64 do not fit
  ChunkedUpload greedy;
  const std::vector<v1::ClientMessage> chunks = Chunks(300);
  ASSERT_TRUE(greedy.Add(chunks[0], budget, kBounds, absl::Now()).ok());
  const absl::Status refused = greedy.Add(chunks[1], budget, kBounds, absl::Now()).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("share of the upload buffers is 125 bytes"), std::string::npos)
      << refused.message();
  EXPECT_EQ(budget.held(), 0u);  // refused: nothing held
  EXPECT_FALSE(greedy.started().has_value());
}

TEST(ChunkedUploadTest, StreamsBeyondTheSharersFindThePoolSpent) {
  UploadBudget budget(150);
  budget.ShareAmong(2);  // 75 bytes each
  ChunkedUpload a, b, c;
  const std::vector<v1::ClientMessage> chunks = Chunks(300);
  ASSERT_TRUE(a.Add(chunks[0], budget, kBounds, absl::Now()).ok());
  ASSERT_TRUE(b.Add(chunks[0], budget, kBounds, absl::Now()).ok());
  const absl::Status refused = c.Add(chunks[0], budget, kBounds, absl::Now()).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("upload buffers are full (128 of 150 bytes held)"),
            std::string::npos)
      << refused.message();
  a.Abandon(budget);
  EXPECT_TRUE(c.Add(chunks[0], budget, kBounds, absl::Now()).ok());
}

TEST(ChunkedUploadTest, TooManyRepeatedElementsAreRefusedUnparsed) {
  UploadBudget budget(10000);
  ChunkedUpload upload;
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(1);
  auto* shares = m.mutable_secagg()->mutable_message()->mutable_share_keys()->mutable_shares();
  for (int i = 0; i < 100; ++i) shares->Add();  // 200 bytes: in chunks
  absl::Status status;
  for (const v1::ClientMessage& chunk : wire::Split(m, wire::kMinChunkBytes)) {
    status = upload.Add(chunk, budget, kBounds, absl::Now()).status();
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("fedmf.v1.secagg.ShareKeysResponse.shares"), std::string::npos)
      << status.message();
  EXPECT_EQ(budget.held(), 0u);
}

}  // namespace
}  // namespace fedmf::server
