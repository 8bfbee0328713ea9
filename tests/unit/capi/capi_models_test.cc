// The C API's published-model download (fedmf_participant_download_request,
// fedmf_participant_handle_model_chunk): a device that missed the end of training learns the
// newest version from Register, downloads it in chunks (resuming a broken call), checks its hash
// and keeps its version with the saved model. C++, to play the coordinator's side with the protos.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "crypto/secagg/derivation.h"
#include "fedmf/fedmf_client.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/mobile.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"
#include "wire/chunking.h"

namespace fedmf {
namespace {

struct Destroy {
  void operator()(fedmf_participant* p) const { fedmf_participant_destroy(p); }
};
using Handle = std::unique_ptr<fedmf_participant, Destroy>;

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

Handle Create(int32_t num_items) {
  v1::ParticipantConfig config;
  config.set_participant_id(5);
  config.set_num_items(num_items);
  const std::string bytes = config.SerializeAsString();
  fedmf_participant* p = nullptr;
  EXPECT_EQ(fedmf_participant_create(Bytes(bytes), bytes.size(), &p), FEDMF_OK)
      << fedmf_last_error();
  return Handle(p);
}

// The final model of the tests' small DPMF-RP run (30 items), as a store publishes it.
struct Published {
  std::string bytes;
  v1::ModelVersion version;
};
Published Publish(int64_t number) {
  Published p;
  p.bytes = client::test_util::SmallUpdater()->Plan().value().SerializeAsString();
  secagg::Sha256 hash;
  hash.Update(p.bytes);
  const std::array<uint8_t, 32> digest = hash.Finish().value();
  p.version.set_version(number);
  p.version.set_final(true);
  p.version.set_sha256(std::string(reinterpret_cast<const char*>(digest.data()), 32));
  p.version.set_size_bytes(p.bytes.size());
  return p;
}

// Feeds a RegisterResponse saying training is done and naming `latest` (version 0: none).
void RegisterAfterTraining(fedmf_participant* p, const v1::ModelVersion& latest) {
  v1::RegisterResponse response;
  response.set_session_token(std::string(16, 't'));
  response.set_training_done(true);
  if (latest.version() > 0) *response.mutable_latest_model() = latest;
  const std::string bytes = response.SerializeAsString();
  uint8_t* token = nullptr;
  size_t token_len = 0;
  ASSERT_EQ(fedmf_participant_open_stream(p, Bytes(bytes), bytes.size(), &token, &token_len),
            FEDMF_OK)
      << fedmf_last_error();
  fedmf_free(token);
}

// fedmf_participant_download_request's status, its request in `request`.
fedmf_status Request(fedmf_participant* p, v1::DownloadModelRequest& request) {
  uint8_t* out = nullptr;
  size_t len = 0;
  const fedmf_status status = fedmf_participant_download_request(p, &out, &len);
  if (status == FEDMF_OK) {
    EXPECT_TRUE(request.ParseFromArray(out, static_cast<int>(len)));
  }
  fedmf_free(out);
  return status;
}

// Feeds bytes [offset, offset + length) of `model` as one chunk; *complete in `complete`.
fedmf_status Feed(fedmf_participant* p, const Published& model, uint64_t offset, size_t length,
                  int& complete) {
  v1::ModelChunk chunk;
  if (offset == 0) *chunk.mutable_version() = model.version;
  chunk.set_offset(offset);
  chunk.set_data(model.bytes.substr(offset, length));
  const std::string bytes = chunk.SerializeAsString();
  return fedmf_participant_handle_model_chunk(p, Bytes(bytes), bytes.size(), &complete);
}

TEST(CapiModelsTest, ALateDeviceDownloadsTheFinalModelResumingABrokenCall) {
  Handle p = Create(30);
  const Published model = Publish(3);
  RegisterAfterTraining(p.get(), model.version);
  EXPECT_EQ(fedmf_participant_training_done(p.get()), 1);
  EXPECT_EQ(fedmf_participant_latest_model_version(p.get()), 3);
  EXPECT_EQ(fedmf_participant_model_version(p.get()), 0);

  v1::DownloadModelRequest request;
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK) << fedmf_last_error();
  EXPECT_EQ(request.version(), 3);
  EXPECT_EQ(request.offset(), 0u);
  const size_t half = model.bytes.size() / 2;
  int complete = -1;
  ASSERT_EQ(Feed(p.get(), model, 0, half, complete), FEDMF_OK) << fedmf_last_error();
  EXPECT_EQ(complete, 0);
  EXPECT_EQ(fedmf_participant_has_model(p.get()), 0);
  // The call broke off: the next request resumes after the bytes received.
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  EXPECT_EQ(request.offset(), half);
  ASSERT_EQ(Feed(p.get(), model, half, model.bytes.size() - half, complete), FEDMF_OK)
      << fedmf_last_error();
  EXPECT_EQ(complete, 1);
  EXPECT_EQ(fedmf_participant_has_model(p.get()), 1);
  EXPECT_EQ(fedmf_participant_model_version(p.get()), 3);
  EXPECT_EQ(Request(p.get(), request), FEDMF_ERR_FAILED_PRECONDITION) << "it holds version 3";

  int32_t items[5];
  double scores[5];
  size_t count = 0;
  EXPECT_EQ(fedmf_participant_recommend(p.get(), 5, items, scores, 5, &count), FEDMF_OK);
  EXPECT_EQ(count, 5u);

  // The version travels with the saved model.
  uint8_t* state = nullptr;
  size_t state_len = 0;
  uint8_t* blob = nullptr;
  size_t blob_len = 0;
  ASSERT_EQ(fedmf_participant_save(p.get(), &state, &state_len), FEDMF_OK);
  ASSERT_EQ(fedmf_participant_save_model(p.get(), &blob, &blob_len), FEDMF_OK);
  fedmf_participant* restored = nullptr;
  ASSERT_EQ(fedmf_participant_restore_with_model(state, state_len, blob, blob_len, &restored),
            FEDMF_OK)
      << fedmf_last_error();
  EXPECT_EQ(fedmf_participant_model_version(restored), 3);
  EXPECT_EQ(fedmf_participant_training_done(restored), 1);
  fedmf_participant_destroy(restored);
  fedmf_free(state);
  fedmf_free(blob);
}

TEST(CapiModelsTest, AModelThatFailsItsHashIsRefusedAndTheDownloadStartsOver) {
  Handle p = Create(30);
  Published model = Publish(3);
  RegisterAfterTraining(p.get(), model.version);
  v1::DownloadModelRequest request;
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  model.bytes[model.bytes.size() / 3] ^= 0x40;
  int complete = -1;
  EXPECT_EQ(Feed(p.get(), model, 0, model.bytes.size(), complete), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(complete, 0);
  EXPECT_NE(std::string(fedmf_last_error()).find("SHA-256"), std::string::npos)
      << fedmf_last_error();
  EXPECT_EQ(fedmf_participant_has_model(p.get()), 0);
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  EXPECT_EQ(request.offset(), 0u);
}

TEST(CapiModelsTest, AChunkThatDoesNotContinueTheDownloadChangesNothing) {
  Handle p = Create(30);
  const Published model = Publish(3);
  RegisterAfterTraining(p.get(), model.version);
  v1::DownloadModelRequest request;
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  int complete = -1;
  ASSERT_EQ(Feed(p.get(), model, 0, 100, complete), FEDMF_OK);
  EXPECT_EQ(Feed(p.get(), model, 300, 100, complete), FEDMF_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(fedmf_participant_handle_model_chunk(p.get(), Bytes("\xff\xff"), 2, &complete),
            FEDMF_ERR_INVALID_ARGUMENT)
      << "not a ModelChunk";
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  EXPECT_EQ(request.offset(), 100u);
}

TEST(CapiModelsTest, AModelOfAnotherCatalogueIsIncompatible) {
  Handle p = Create(20);
  const Published model = Publish(3);
  RegisterAfterTraining(p.get(), model.version);
  v1::DownloadModelRequest request;
  ASSERT_EQ(Request(p.get(), request), FEDMF_OK);
  int complete = -1;
  EXPECT_EQ(Feed(p.get(), model, 0, model.bytes.size(), complete), FEDMF_ERR_INCOMPATIBLE_MODEL);
  EXPECT_EQ(complete, 0);
  EXPECT_EQ(fedmf_participant_has_model(p.get()), 0);
}

// Issue 46, defect 2: a device restored between the chunks of the result that ends training lost
// the final model and training_done. The chunks that follow the restore are refused; its next
// registration says training is over and names the final model, which it then downloads.
TEST(CapiModelsTest, ARestoreBetweenTheFinalResultsChunksEndsWithTheFinalModel) {
  Handle p = Create(30);
  const Published model = Publish(1);
  v1::ServerMessage done;
  done.mutable_result()->set_training_done(true);
  done.mutable_result()->set_rounds_completed(3);
  ASSERT_TRUE(done.mutable_result()->mutable_final_model()->ParseFromString(model.bytes));
  *done.mutable_result()->mutable_final_model_version() = model.version;
  const std::vector<v1::ServerMessage> chunks = wire::Split(done, 256);
  ASSERT_GE(chunks.size(), 3u);
  fedmf_messages* replies = nullptr;
  const std::string first = chunks[0].SerializeAsString();
  ASSERT_EQ(fedmf_participant_handle(p.get(), Bytes(first), first.size(), &replies), FEDMF_OK)
      << fedmf_last_error();
  fedmf_messages_free(replies);
  uint8_t* state = nullptr;
  size_t state_len = 0;
  ASSERT_EQ(fedmf_participant_save(p.get(), &state, &state_len), FEDMF_OK);
  fedmf_participant* raw = nullptr;
  ASSERT_EQ(fedmf_participant_restore(state, state_len, &raw), FEDMF_OK) << fedmf_last_error();
  fedmf_free(state);
  Handle restored(raw);
  for (size_t i = 1; i < chunks.size(); ++i) {
    const std::string bytes = chunks[i].SerializeAsString();
    replies = nullptr;
    fedmf_participant_handle(restored.get(), Bytes(bytes), bytes.size(), &replies);
    fedmf_messages_free(replies);
  }
  EXPECT_EQ(fedmf_participant_has_model(restored.get()), 0) << "the sequence's start is lost";

  RegisterAfterTraining(restored.get(), model.version);
  EXPECT_EQ(fedmf_participant_training_done(restored.get()), 1);
  v1::DownloadModelRequest request;
  ASSERT_EQ(Request(restored.get(), request), FEDMF_OK) << fedmf_last_error();
  int complete = -1;
  ASSERT_EQ(Feed(restored.get(), model, 0, model.bytes.size(), complete), FEDMF_OK)
      << fedmf_last_error();
  EXPECT_EQ(complete, 1);
  EXPECT_EQ(fedmf_participant_model_version(restored.get()), 1);

  // Without the restore, the result itself brings the final model and its version: nothing to
  // download.
  Handle connected = Create(30);
  for (const v1::ServerMessage& chunk : chunks) {
    const std::string bytes = chunk.SerializeAsString();
    replies = nullptr;
    ASSERT_EQ(fedmf_participant_handle(connected.get(), Bytes(bytes), bytes.size(), &replies),
              FEDMF_OK)
        << fedmf_last_error();
    fedmf_messages_free(replies);
  }
  EXPECT_EQ(fedmf_participant_model_version(connected.get()), 1);
  RegisterAfterTraining(connected.get(), model.version);
  EXPECT_EQ(Request(connected.get(), request), FEDMF_ERR_FAILED_PRECONDITION);
}

TEST(CapiModelsTest, NothingToDownloadIsAFailedPrecondition) {
  Handle p = Create(30);
  v1::DownloadModelRequest request;
  EXPECT_EQ(Request(p.get(), request), FEDMF_ERR_FAILED_PRECONDITION) << "no RegisterResponse";
  RegisterAfterTraining(p.get(), v1::ModelVersion());
  EXPECT_EQ(Request(p.get(), request), FEDMF_ERR_FAILED_PRECONDITION) << "none published";
  int complete = -1;
  EXPECT_EQ(fedmf_participant_handle_model_chunk(p.get(), nullptr, 0, &complete),
            FEDMF_ERR_FAILED_PRECONDITION);
  EXPECT_EQ(fedmf_participant_latest_model_version(nullptr), 0);
  EXPECT_EQ(fedmf_participant_model_version(nullptr), 0);
  EXPECT_EQ(fedmf_participant_download_request(nullptr, nullptr, nullptr),
            FEDMF_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace fedmf
