#include "client/model_download.h"

#include <string>

#include "absl/status/status.h"
#include "crypto/secagg/derivation.h"
#include "gtest/gtest.h"
#include "wire/limits.h"

namespace fedmf::client {
namespace {

// A published model of `length` bytes of plan payload and its version, as a store publishes it.
struct Published {
  std::string bytes;
  v1::ModelVersion version;
};

Published Publish(size_t payload_bytes, int64_t number = 4) {
  v1::RoundPlan plan;
  plan.set_algorithm("dpmf-rp");
  plan.set_round(7);
  plan.set_payload(std::string(payload_bytes, 'x'));
  Published p;
  p.bytes = plan.SerializeAsString();
  secagg::Sha256 hash;
  hash.Update(p.bytes);
  const std::array<uint8_t, 32> digest = hash.Finish().value();
  p.version.set_version(number);
  p.version.set_sha256(std::string(reinterpret_cast<const char*>(digest.data()), 32));
  p.version.set_size_bytes(p.bytes.size());
  return p;
}

v1::ModelChunk Chunk(const Published& p, uint64_t offset, size_t length) {
  v1::ModelChunk chunk;
  if (offset == 0) *chunk.mutable_version() = p.version;
  chunk.set_offset(offset);
  chunk.set_data(p.bytes.substr(offset, length));
  return chunk;
}

TEST(ModelDownloadTest, ChunksInOrderGiveTheModel) {
  const Published p = Publish(2'500'000);
  ModelDownload download = ModelDownload::Start(p.version, 1 << 30).value();
  EXPECT_EQ(download.NextRequest().version(), 4);
  EXPECT_EQ(download.NextRequest().offset(), 0u);
  for (uint64_t offset = 0; offset < p.bytes.size(); offset += wire::kModelChunkBytes) {
    ASSERT_TRUE(download.Add(Chunk(p, offset, wire::kModelChunkBytes)).ok());
  }
  ASSERT_TRUE(download.complete());
  absl::StatusOr<v1::RoundPlan> model = download.Finish();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->round(), 7);
  EXPECT_EQ(model->payload().size(), 2'500'000u);
}

TEST(ModelDownloadTest, ABrokenDownloadResumesAfterTheBytesReceived) {
  const Published p = Publish(3000);
  ModelDownload download = ModelDownload::Start(p.version, 1 << 30).value();
  ASSERT_TRUE(download.Add(Chunk(p, 0, 1000)).ok());
  // The call broke off; the next one asks for the rest.
  const v1::DownloadModelRequest next = download.NextRequest();
  EXPECT_EQ(next.offset(), 1000u);
  ASSERT_TRUE(download.Add(Chunk(p, next.offset(), p.bytes.size() - 1000)).ok());
  EXPECT_TRUE(download.Finish().ok());
}

TEST(ModelDownloadTest, ChunksThatDoNotContinueTheDownloadAreRefused) {
  const Published p = Publish(3000);
  ModelDownload download = ModelDownload::Start(p.version, 1 << 30).value();
  ASSERT_TRUE(download.Add(Chunk(p, 0, 1000)).ok());
  EXPECT_FALSE(download.Add(Chunk(p, 1500, 100)).ok()) << "a gap";
  EXPECT_FALSE(download.Add(Chunk(p, 500, 100)).ok()) << "an overlap";
  EXPECT_FALSE(download.Add(Chunk(p, 1000, 0)).ok()) << "empty";
  v1::ModelChunk past_end = Chunk(p, 1000, 100);
  past_end.set_data(std::string(p.bytes.size(), 'y'));
  EXPECT_FALSE(download.Add(past_end).ok()) << "past the model's size";
  v1::ModelChunk other = Chunk(p, 1000, 100);
  *other.mutable_version() = Publish(10, /*number=*/5).version;
  EXPECT_FALSE(download.Add(other).ok()) << "another version";
  EXPECT_EQ(download.received_bytes(), 1000u) << "nothing refused was appended";
}

TEST(ModelDownloadTest, AChunkOverTheChunkLimitIsRefused) {
  const Published p = Publish(wire::kModelChunkBytes + 100);
  ModelDownload download = ModelDownload::Start(p.version, 1 << 30).value();
  EXPECT_FALSE(download.Add(Chunk(p, 0, wire::kModelChunkBytes + 1)).ok());
}

TEST(ModelDownloadTest, AModelThatFailsItsHashIsDiscardedAndStartsOver) {
  Published p = Publish(3000);
  p.bytes[100] ^= 0x01;  // corrupted on the way
  ModelDownload download = ModelDownload::Start(p.version, 1 << 30).value();
  ASSERT_TRUE(download.Add(Chunk(p, 0, p.bytes.size())).ok());
  absl::StatusOr<v1::RoundPlan> model = download.Finish();
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("SHA-256"), std::string::npos) << model.status();
  EXPECT_EQ(download.NextRequest().offset(), 0u);
}

TEST(ModelDownloadTest, VersionsThatCannotBeDownloadedAreRefusedAtStart) {
  Published p = Publish(3000);
  EXPECT_FALSE(ModelDownload::Start(p.version, /*max_bytes=*/2000).ok()) << "over the limit";
  v1::ModelVersion no_hash = p.version;
  no_hash.clear_sha256();
  EXPECT_FALSE(ModelDownload::Start(no_hash, 1 << 30).ok());
  v1::ModelVersion empty = p.version;
  empty.set_size_bytes(0);
  EXPECT_FALSE(ModelDownload::Start(empty, 1 << 30).ok());
  v1::ModelVersion unnumbered = p.version;
  unnumbered.set_version(0);
  EXPECT_FALSE(ModelDownload::Start(unnumbered, 1 << 30).ok());
}

}  // namespace
}  // namespace fedmf::client
