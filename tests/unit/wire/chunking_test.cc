// Chunking of large federation messages: the split of a message into chunks (sizes worked out by
// hand from the protobuf encoding), the round trip, and every malformed sequence the reassembler
// must refuse without holding on to the partial message.
#include "wire/chunking.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "wire/envelope.h"

namespace fedmf::wire {
namespace {

using ServerReassembler = Reassembler<v1::ServerMessage>;

// RoundResult{round 7, reason 1000 x}: round 2 bytes (tag, 7) + reason 1003 (tag, varint 1000 in
// 2 bytes, 1000) = 1005; in a ServerMessage: tag, varint 1005 in 2 bytes, 1005 = 1008 bytes.
v1::ServerMessage Result1008() {
  v1::ServerMessage m;
  m.mutable_result()->set_round(7);
  m.mutable_result()->set_reason(std::string(1000, 'x'));
  return m;
}

v1::ServerMessage ChunkMessage(int64_t round, uint32_t participant, uint32_t index, uint32_t count,
                               uint64_t total, std::string data) {
  v1::ServerMessage m;
  v1::Chunk* c = m.mutable_chunk();
  c->set_round(round);
  c->set_participant_id(participant);
  c->set_index(index);
  c->set_count(count);
  c->set_total_bytes(total);
  c->set_data(std::move(data));
  return m;
}

// Feeds `chunks` and returns the status of the first failure (OK if none failed).
absl::Status Feed(ServerReassembler& r, const std::vector<v1::ServerMessage>& chunks) {
  for (const v1::ServerMessage& c : chunks) {
    absl::StatusOr<std::optional<ServerReassembler::Complete>> added = r.Add(c);
    if (!added.ok()) return added.status();
  }
  return absl::OkStatus();
}

TEST(ChunkingTest, ValidateChunkBytesAcceptsTheDocumentedRange) {
  EXPECT_FALSE(ValidateChunkBytes(127).ok());
  EXPECT_TRUE(ValidateChunkBytes(128).ok());
  EXPECT_TRUE(ValidateChunkBytes(1024).ok());
  EXPECT_TRUE(ValidateChunkBytes(64 << 20).ok());
  EXPECT_FALSE(ValidateChunkBytes((64 << 20) + 1).ok());
  EXPECT_FALSE(ValidateChunkBytes(-1).ok());
}

TEST(ChunkingTest, MessagesThatFitAreSentWhole) {
  ASSERT_EQ(Result1008().ByteSizeLong(), 1008u);
  const std::vector<v1::ServerMessage> out = Split(Result1008(), 1008);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].has_result());
  EXPECT_EQ(out[0].result().reason().size(), 1000u);
}

TEST(ChunkingTest, SplitCutsTheSerializationIntoPiecesOfChunkSizeLessOverhead) {
  const std::vector<v1::ServerMessage> out = Split(Result1008(), 100 + kChunkOverheadBytes);
  ASSERT_EQ(out.size(), 11u);  // ceil(1008 / 100)
  std::string joined;
  for (uint32_t i = 0; i < 11; ++i) {
    ASSERT_TRUE(out[i].has_chunk());
    const v1::Chunk& c = out[i].chunk();
    EXPECT_EQ(c.index(), i);
    EXPECT_EQ(c.count(), 11u);
    EXPECT_EQ(c.total_bytes(), 1008u);
    EXPECT_EQ(c.round(), 7);
    EXPECT_EQ(c.participant_id(), 0u);
    EXPECT_EQ(c.data().size(), i < 10 ? 100u : 8u);
    joined += c.data();
  }
  EXPECT_EQ(joined, Result1008().SerializeAsString());
}

TEST(ChunkingTest, SplitClampsTooSmallChunkSizes) {
  EXPECT_EQ(Split(Result1008(), 0).size(), 16u);  // ceil(1008 / (128 - 64))
}

// A peer whose receive limit is the chunk size (gRPC's default 4 MiB against the default chunk
// size) takes every message, even with every header field at its widest varint.
TEST(ChunkingTest, NoMessageExceedsTheChunkSize) {
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(UINT32_MAX);
  m.mutable_secagg()->set_round(-1);  // a 10-byte varint
  for (size_t chunk_bytes : {kMinChunkBytes, size_t{1000}, kDefaultChunkBytes}) {
    m.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(
        std::string(2 * chunk_bytes + 12345, 'y'));
    const std::vector<v1::ClientMessage> pieces = Split(m, chunk_bytes);
    ASSERT_GT(pieces.size(), 2u);
    for (const v1::ClientMessage& piece : pieces) {
      EXPECT_LE(piece.ByteSizeLong(), chunk_bytes) << "chunk size " << chunk_bytes;
    }
  }
}

TEST(ChunkingTest, RoundTripReturnsTheMessageAndCountsEnvelopeBytes) {
  ServerReassembler r;
  const std::vector<v1::ServerMessage> chunks = Split(Result1008(), 100 + kChunkOverheadBytes);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    absl::StatusOr<std::optional<ServerReassembler::Complete>> added = r.Add(chunks[i]);
    ASSERT_TRUE(added.ok()) << added.status();
    EXPECT_FALSE(added->has_value());
    EXPECT_TRUE(r.in_progress());
    EXPECT_EQ(r.pending_bytes(), 100 * (i + 1));
  }
  absl::StatusOr<std::optional<ServerReassembler::Complete>> last = r.Add(chunks.back());
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_TRUE(last->has_value());
  EXPECT_EQ((*last)->message.SerializeAsString(), Result1008().SerializeAsString());
  // Envelope sizes: Chunk = round (2) + index (0 for index 0, else 2) + count (2) + total_bytes
  // (tag + 2-byte varint = 3) + data (tag + length + data); the ServerMessage adds tag + length.
  // Chunk 0: 2+0+2+3+102 = 109 -> 111; chunks 1-9: 111 -> 113; chunk 10: 2+2+2+3+10 = 19 -> 21.
  EXPECT_EQ((*last)->wire_bytes, 111u + 9 * 113u + 21u);
  EXPECT_FALSE(r.in_progress());
  EXPECT_EQ(r.pending_bytes(), 0u);
}

TEST(ChunkingTest, ClientMessagesCarryTheParticipantInEveryChunk) {
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(5);
  m.mutable_secagg()->set_round(3);
  m.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(std::string(500, 'y'));
  const std::vector<v1::ClientMessage> chunks = Split(m, 64);
  ASSERT_GT(chunks.size(), 1u);
  Reassembler<v1::ClientMessage> r;
  std::optional<Reassembler<v1::ClientMessage>::Complete> complete;
  for (const v1::ClientMessage& c : chunks) {
    EXPECT_EQ(c.chunk().participant_id(), 5u);
    EXPECT_EQ(c.chunk().round(), 3);
    absl::StatusOr<std::optional<Reassembler<v1::ClientMessage>::Complete>> added = r.Add(c);
    ASSERT_TRUE(added.ok()) << added.status();
    if (added->has_value()) complete = std::move(*added);
  }
  ASSERT_TRUE(complete.has_value());
  EXPECT_EQ(complete->message.secagg().message().masked_input().packed(), std::string(500, 'y'));
}

TEST(ChunkingTest, RefusesAnEnvelopeWithoutAChunk) {
  ServerReassembler r;
  EXPECT_TRUE(absl::IsInvalidArgument(r.Add(Result1008()).status()));
}

TEST(ChunkingTest, RefusesABadFirstChunk) {
  struct Case {
    const char* what;
    v1::ServerMessage chunk;
  };
  const std::vector<Case> cases = {
      {"index 1 first", ChunkMessage(7, 0, 1, 2, 10, "abcde")},
      {"count 0", ChunkMessage(7, 0, 0, 0, 10, "abcde")},
      {"total 0", ChunkMessage(7, 0, 0, 2, 0, "abcde")},
      {"total over the bound", ChunkMessage(7, 0, 0, 2, 1001, "abcde")},
      {"more chunks than bytes", ChunkMessage(7, 0, 0, 11, 10, "a")},
      {"empty data", ChunkMessage(7, 0, 0, 2, 10, "")},
      {"data over total", ChunkMessage(7, 0, 0, 2, 4, "abcde")},
      {"only chunk short", ChunkMessage(7, 0, 0, 1, 10, "abcde")},
      {"first of two holds everything", ChunkMessage(7, 0, 0, 2, 5, "abcde")},
  };
  for (const Case& c : cases) {
    ServerReassembler r(/*max_bytes=*/1000);
    EXPECT_TRUE(absl::IsInvalidArgument(r.Add(c.chunk).status())) << c.what;
    EXPECT_FALSE(r.in_progress()) << c.what;
  }
}

// The operator's transfer bound: 64 MiB (the largest chunk, which arrives whole) to INT_MAX bytes
// (protobuf's message limit); a refusal names the setting and the value.
TEST(ChunkingTest, TransferBoundsOutsideSixtyFourMibToIntMaxAreRefused) {
  constexpr int64_t kLow = int64_t{64} << 20;
  constexpr int64_t kHigh = 2147483647;
  EXPECT_TRUE(ValidateTransferBytes("--max_plan_bytes", kLow).ok());
  EXPECT_TRUE(ValidateTransferBytes("--max_plan_bytes", int64_t{1} << 30).ok());
  EXPECT_TRUE(ValidateTransferBytes("--max_plan_bytes", kHigh).ok());
  for (const int64_t bad : {int64_t{-1}, int64_t{0}, kLow - 1, kHigh + 1}) {
    const absl::Status s = ValidateTransferBytes("--max_download_bytes", bad);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
    EXPECT_NE(s.message().find(absl::StrCat("--max_download_bytes=", bad)), std::string::npos) << s;
  }
}

// A message above the default bound, reassembled with a raised one: the bound is the receiver's
// only limit (small sizes stand in for 1 GiB and more).
TEST(ChunkingTest, RaisedBoundTakesWhatTheDefaultRefuses) {
  v1::ServerMessage task;
  task.mutable_task()->set_round(1);
  task.mutable_task()->mutable_plan()->set_payload(std::string(5000, 'x'));
  const uint64_t size = task.ByteSizeLong();
  const std::vector<v1::ServerMessage> chunks = Split(task, kMinChunkBytes);
  ServerReassembler low(size - 1);
  EXPECT_TRUE(absl::IsInvalidArgument(low.Add(chunks[0]).status()));
  ServerReassembler raised(size);
  std::optional<ServerReassembler::Complete> complete;
  for (const v1::ServerMessage& c : chunks) {
    absl::StatusOr<std::optional<ServerReassembler::Complete>> added = raised.Add(c);
    ASSERT_TRUE(added.ok()) << added.status();
    if (*added) complete = std::move(**added);
  }
  ASSERT_TRUE(complete.has_value());
  EXPECT_EQ(complete->message.SerializeAsString(), task.SerializeAsString());
}

// Every chunk repeats its message's phase; a chunk of another phase than chunk 0's, and a
// reassembled message of another phase than its chunks, are refused.
TEST(ChunkingTest, ChunksCarryThePhaseAndMustAgreeOnIt) {
  v1::ServerMessage task;
  task.mutable_task()->set_round(4);
  task.mutable_task()->mutable_plan()->set_phase(2);
  task.mutable_task()->mutable_plan()->set_payload(std::string(500, 'p'));
  std::vector<v1::ServerMessage> chunks = Split(task, kMinChunkBytes);
  ASSERT_GT(chunks.size(), 2u);
  for (const v1::ServerMessage& c : chunks) EXPECT_EQ(c.chunk().phase(), 2);
  EXPECT_EQ(TagOf(chunks[0]).phase, 2);
  ServerReassembler r;
  ASSERT_TRUE(r.Add(chunks[0]).ok());
  v1::ServerMessage other = chunks[1];
  other.mutable_chunk()->set_phase(3);
  EXPECT_TRUE(absl::IsInvalidArgument(r.Add(other).status()));
  for (v1::ServerMessage& c : chunks) c.mutable_chunk()->set_phase(1);  // all agree, but lie
  ServerReassembler lied;
  absl::Status last;
  for (const v1::ServerMessage& c : chunks) last = lied.Add(c).status();
  EXPECT_TRUE(absl::IsInvalidArgument(last));
  EXPECT_NE(last.message().find("phase 2"), std::string::npos) << last;
}

TEST(ChunkingTest, RefusesAChunkThatDoesNotContinueTheSequence) {
  const v1::ServerMessage first = ChunkMessage(7, 0, 0, 3, 15, "abcde");
  struct Case {
    const char* what;
    v1::ServerMessage next;
  };
  const std::vector<Case> cases = {
      {"skipped index", ChunkMessage(7, 0, 2, 3, 15, "fghij")},
      {"repeated index", ChunkMessage(7, 0, 0, 3, 15, "fghij")},
      {"other round", ChunkMessage(8, 0, 1, 3, 15, "fghij")},
      {"other participant", ChunkMessage(7, 4, 1, 3, 15, "fghij")},
      {"other count", ChunkMessage(7, 0, 1, 4, 15, "fghij")},
      {"other total", ChunkMessage(7, 0, 1, 3, 16, "fghij")},
      {"empty data", ChunkMessage(7, 0, 1, 3, 15, "")},
      {"data over total", ChunkMessage(7, 0, 1, 3, 15, "fghijklmnopq")},
      {"completes early", ChunkMessage(7, 0, 1, 3, 15, "fghijklmno")},
  };
  for (const Case& c : cases) {
    ServerReassembler r;
    ASSERT_TRUE(r.Add(first).ok()) << c.what;
    EXPECT_TRUE(absl::IsInvalidArgument(r.Add(c.next).status())) << c.what;
    EXPECT_FALSE(r.in_progress()) << c.what;
    EXPECT_EQ(r.pending_bytes(), 0u) << c.what;
  }
}

TEST(ChunkingTest, RefusesALastChunkShortOfTheTotal) {
  ServerReassembler r;
  EXPECT_TRUE(absl::IsInvalidArgument(
      Feed(r, {ChunkMessage(7, 0, 0, 2, 15, "abcde"), ChunkMessage(7, 0, 1, 2, 15, "fghij")})));
}

TEST(ChunkingTest, RefusesASecondSequenceStartingBeforeTheFirstEnds) {
  const std::vector<v1::ServerMessage> a = Split(Result1008(), 100);
  const std::vector<v1::ServerMessage> b = Split(Result1008(), 200);
  ServerReassembler r;
  ASSERT_TRUE(Feed(r, {a[0], a[1], a[2]}).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.Add(b[0]).status()));  // index 0, expected 3
  // The broken sequence is gone; a complete one goes through afterwards.
  EXPECT_FALSE(r.in_progress());
  std::optional<ServerReassembler::Complete> complete;
  for (const v1::ServerMessage& c : b) {
    absl::StatusOr<std::optional<ServerReassembler::Complete>> added = r.Add(c);
    ASSERT_TRUE(added.ok()) << added.status();
    if (added->has_value()) complete = std::move(*added);
  }
  ASSERT_TRUE(complete.has_value());
  EXPECT_EQ(complete->message.result().round(), 7);
}

TEST(ChunkingTest, RefusesReassembledBytesThatDoNotParse) {
  ServerReassembler r;
  // 0xff 0xff 0xff: a field tag varint that never ends.
  EXPECT_TRUE(absl::IsInvalidArgument(
      Feed(r, {ChunkMessage(7, 0, 0, 2, 3, "\xff\xff"), ChunkMessage(7, 0, 1, 2, 3, "\xff")})));
}

TEST(ChunkingTest, RefusesANestedChunk) {
  const std::string inner = ChunkMessage(1, 0, 0, 1, 1, "z").SerializeAsString();
  ServerReassembler r;
  EXPECT_TRUE(
      absl::IsInvalidArgument(Feed(r, {ChunkMessage(1, 0, 0, 2, inner.size(), inner.substr(0, 3)),
                                       ChunkMessage(1, 0, 1, 2, inner.size(), inner.substr(3))})));
}

TEST(ChunkingTest, RefusesAMessageOfAnotherRoundOrParticipantThanItsChunks) {
  const std::string result = Result1008().SerializeAsString();  // round 7, participant 0
  for (const auto& [round, participant] :
       std::vector<std::pair<int64_t, uint32_t>>{{8, 0}, {7, 3}}) {
    ServerReassembler r;
    EXPECT_TRUE(absl::IsInvalidArgument(
        Feed(r, {ChunkMessage(round, participant, 0, 2, result.size(), result.substr(0, 500)),
                 ChunkMessage(round, participant, 1, 2, result.size(), result.substr(500))})))
        << round << "/" << participant;
  }
}

TEST(ChunkingTest, TagOfNamesRoundAndParticipant) {
  v1::ServerMessage task;
  task.mutable_task()->set_round(4);
  task.mutable_task()->add_participant_ids(9);
  EXPECT_EQ(TagOf(task).round, 4);
  EXPECT_EQ(TagOf(task).participant_id, 0u);
  v1::ServerMessage secagg;
  secagg.mutable_secagg()->set_round(2);
  secagg.mutable_secagg()->set_participant_id(6);
  EXPECT_EQ(TagOf(secagg).round, 2);
  EXPECT_EQ(TagOf(secagg).participant_id, 6u);
  v1::ServerMessage evaluation;  // an evaluation phase's task
  evaluation.mutable_task()->set_round(5);
  evaluation.mutable_task()->mutable_plan()->set_phase(kEvaluationPhase);
  evaluation.mutable_task()->add_participant_ids(9);
  EXPECT_EQ(TagOf(evaluation).round, 5);
  EXPECT_EQ(TagOf(evaluation).participant_id, 0u);
  v1::ClientMessage upload;
  upload.mutable_clear_upload()->set_round(3);
  upload.mutable_clear_upload()->set_participant_id(8);
  EXPECT_EQ(TagOf(upload).round, 3);
  EXPECT_EQ(TagOf(upload).participant_id, 8u);
  EXPECT_EQ(TagOf(v1::ClientMessage()).round, 0);
  EXPECT_EQ(TagOf(v1::ClientMessage()).participant_id, 0u);
}

TEST(ChunkingTest, EvaluationTasksAndEvaluationSecAggRoundTrip) {
  v1::ServerMessage task;  // an evaluation phase's task
  task.mutable_task()->set_round(10);
  task.mutable_task()->add_participant_ids(4);
  task.mutable_task()->mutable_plan()->set_round(10);
  task.mutable_task()->mutable_plan()->set_phase(kEvaluationPhase);
  task.mutable_task()->mutable_plan()->set_algorithm("federated-evaluation");
  task.mutable_task()->mutable_plan()->set_payload(std::string(700, 'm'));
  const std::vector<v1::ServerMessage> down = Split(task, 100);
  ASSERT_GT(down.size(), 1u);
  ServerReassembler r;
  std::optional<ServerReassembler::Complete> complete;
  for (const v1::ServerMessage& c : down) {
    EXPECT_EQ(c.chunk().round(), 10);
    absl::StatusOr<std::optional<ServerReassembler::Complete>> added = r.Add(c);
    ASSERT_TRUE(added.ok()) << added.status();
    if (added->has_value()) complete = std::move(*added);
  }
  ASSERT_TRUE(complete.has_value());
  EXPECT_EQ(complete->message.SerializeAsString(), task.SerializeAsString());

  v1::ClientMessage up;
  up.mutable_secagg()->set_participant_id(4);
  up.mutable_secagg()->set_round(10);
  up.mutable_secagg()->set_phase(3);
  up.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(std::string(300, 'z'));
  Reassembler<v1::ClientMessage> u;
  std::optional<Reassembler<v1::ClientMessage>::Complete> whole;
  for (const v1::ClientMessage& c : Split(up, 64)) {
    absl::StatusOr<std::optional<Reassembler<v1::ClientMessage>::Complete>> added = u.Add(c);
    ASSERT_TRUE(added.ok()) << added.status();
    if (added->has_value()) whole = std::move(*added);
  }
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->message.secagg().phase(), 3);
  EXPECT_EQ(whole->message.SerializeAsString(), up.SerializeAsString());
}

}  // namespace
}  // namespace fedmf::wire
