// ParticipantHost's reply sink: a task's replies leave in batches as they are built, each batch
// only after the local states its replies depend on went to the local-state sink.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/participant_host.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

using ::testing::HasSubstr;

constexpr int kContributors = 10;

// The participants of `state` that keep a state of `algorithm`.
std::vector<uint32_t> WithState(const v1::HostLocalState& state, const std::string& algorithm) {
  std::vector<uint32_t> ids;
  for (const v1::ParticipantLocalState& p : state.participants()) {
    if (p.algorithm_states().contains(algorithm)) ids.push_back(p.participant_id());
  }
  return ids;
}

class ParticipantHostStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_->set_local_state_sink([this](const v1::HostLocalState& state) {
      persisted_.push_back(state);
      return absl::OkStatus();
    });
  }

  // Participant `id`'s upload, or 0 for another kind of message.
  static uint32_t UploadOf(const v1::ClientMessage& reply) {
    return reply.has_clear_upload() ? reply.clear_upload().participant_id() : 0;
  }

  std::shared_ptr<const data::RatingsDataset> data_ = test_util::SmallData();
  std::unique_ptr<ParticipantHost> host_ =
      ParticipantHost::Create(data_, test_util::AllUsers(*data_)).value();
  const v1::ServerMessage task_ = test_util::ProbeTask(*data_, kContributors);
  const std::string algorithm_ = task_.task().plan().algorithm();
  std::vector<v1::HostLocalState> persisted_;  // what the local-state sink received, in order
};

// With a batch of one reply, the host persists and sends one participant at a time: each reply
// leaves after its own state is persisted and before the next participant contributes.
TEST_F(ParticipantHostStreamTest, EachRepliesBatchLeavesOnceItsStatesArePersisted) {
  host_->set_reply_batch_bytes(1);
  std::vector<uint32_t> sent;
  const absl::Status handled = host_->Handle(task_, [&](v1::ClientMessage reply) {
    const uint32_t id = UploadOf(reply);
    EXPECT_NE(id, 0u) << reply.ShortDebugString();
    sent.push_back(id);
    // Persisted before it left: the states of the participants sent so far, this one included,
    // and no one else's (the others have not contributed yet).
    EXPECT_EQ(persisted_.size(), sent.size());
    if (!persisted_.empty()) {
      EXPECT_EQ(WithState(persisted_.back(), algorithm_), sent);
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(handled.ok()) << handled;
  EXPECT_EQ(sent, test_util::ParticipantIds(kContributors));
}

// Small replies make one batch by default: one persist of every contributor before any leaves.
TEST_F(ParticipantHostStreamTest, SmallRepliesAreOneBatchPersistedOnce) {
  absl::StatusOr<std::vector<v1::ClientMessage>> replies = host_->Handle(task_);
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), static_cast<size_t>(kContributors));
  ASSERT_EQ(persisted_.size(), 1u);
  EXPECT_EQ(WithState(persisted_[0], algorithm_), test_util::ParticipantIds(kContributors));
}

// A batch the local-state sink fails to persist is not sent, nor anything after it; the
// batches before it are out.
TEST_F(ParticipantHostStreamTest, NothingLeavesAfterABatchThatWasNotPersisted) {
  host_->set_reply_batch_bytes(1);
  host_->set_local_state_sink([this](const v1::HostLocalState& state) {
    if (persisted_.size() == 3) return absl::UnavailableError("disk full");
    persisted_.push_back(state);
    return absl::OkStatus();
  });
  std::vector<uint32_t> sent;
  const absl::Status handled = host_->Handle(task_, [&](v1::ClientMessage reply) {
    sent.push_back(UploadOf(reply));
    return absl::OkStatus();
  });
  EXPECT_EQ(handled.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(handled.message(), HasSubstr("local state not persisted"));
  EXPECT_THAT(handled.message(), HasSubstr("disk full"));
  EXPECT_EQ(sent, test_util::ParticipantIds(3));
  // Participant 4 contributed (its batch failed to persist); 5 and later never did.
  EXPECT_EQ(WithState(host_->ExportLocalState(), algorithm_), test_util::ParticipantIds(4));
}

// A transport that fails to send ends the task: the host builds no further reply.
TEST_F(ParticipantHostStreamTest, ASendErrorStopsTheTask) {
  host_->set_reply_batch_bytes(1);
  std::vector<uint32_t> sent;
  const absl::Status handled = host_->Handle(task_, [&](v1::ClientMessage reply) {
    if (sent.size() == 2) return absl::UnavailableError("stream closed");
    sent.push_back(UploadOf(reply));
    return absl::OkStatus();
  });
  EXPECT_EQ(handled.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(sent, test_util::ParticipantIds(2));
  EXPECT_EQ(WithState(host_->ExportLocalState(), algorithm_), test_util::ParticipantIds(3));
}

}  // namespace
}  // namespace fedmf::client
