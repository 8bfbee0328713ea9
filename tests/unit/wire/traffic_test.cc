// Stage classification of federation messages and the per-stage byte counter.
#include "wire/traffic.h"

#include "gtest/gtest.h"

namespace fedmf::wire {
namespace {

v1::ServerMessage Down(void (*fill)(v1::secagg::ServerToClient&)) {
  v1::ServerMessage m;
  fill(*m.mutable_secagg()->mutable_message());
  return m;
}

v1::ClientMessage Up(void (*fill)(v1::secagg::ClientToServer&)) {
  v1::ClientMessage m;
  fill(*m.mutable_secagg()->mutable_message());
  return m;
}

TEST(TrafficTest, ServerMessagesOpenTheirStage) {
  v1::ServerMessage task;
  task.mutable_task()->set_round(1);
  EXPECT_EQ(StageOf(task), Stage::kTask);
  v1::ServerMessage evaluation_task;  // an evaluation round's task
  evaluation_task.mutable_task()->set_round(1);
  evaluation_task.mutable_task()->mutable_plan()->set_phase(-1);
  EXPECT_EQ(StageOf(evaluation_task), Stage::kTask);
  v1::ServerMessage result;
  result.mutable_result()->set_round(1);
  EXPECT_EQ(StageOf(result), Stage::kResult);
  EXPECT_EQ(StageOf(Down([](auto& s) { s.mutable_share_keys(); })), Stage::kShareKeys);
  EXPECT_EQ(StageOf(Down([](auto& s) { s.mutable_masked_input(); })), Stage::kMaskedInput);
  EXPECT_EQ(StageOf(Down([](auto& s) { s.mutable_consistency_check(); })),
            Stage::kConsistencyCheck);
  EXPECT_EQ(StageOf(Down([](auto& s) { s.mutable_unmasking(); })), Stage::kUnmasking);
  EXPECT_EQ(StageOf(Down([](auto& s) { s.mutable_abort(); })), Stage::kAbort);
  v1::ServerMessage chunk;
  chunk.mutable_chunk()->set_count(2);
  EXPECT_EQ(StageOf(chunk), Stage::kOther);
  EXPECT_EQ(StageOf(v1::ServerMessage()), Stage::kOther);
}

TEST(TrafficTest, ClientMessagesAnswerTheirStage) {
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_advertise_keys(); })), Stage::kAdvertiseKeys);
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_share_keys(); })), Stage::kShareKeys);
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_masked_input(); })), Stage::kMaskedInput);
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_consistency_check(); })), Stage::kConsistencyCheck);
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_unmasking(); })), Stage::kUnmasking);
  EXPECT_EQ(StageOf(Up([](auto& c) { c.mutable_abort(); })), Stage::kAbort);
  v1::ClientMessage upload;
  upload.mutable_clear_upload()->set_round(1);
  EXPECT_EQ(StageOf(upload), Stage::kClearUpload);
  EXPECT_EQ(StageOf(v1::ClientMessage()), Stage::kOther);
}

TEST(TrafficTest, StageNamesAreSnakeCase) {
  EXPECT_EQ(StageName(Stage::kTask), "task");
  EXPECT_EQ(StageName(Stage::kAdvertiseKeys), "advertise_keys");
  EXPECT_EQ(StageName(Stage::kShareKeys), "share_keys");
  EXPECT_EQ(StageName(Stage::kMaskedInput), "masked_input");
  EXPECT_EQ(StageName(Stage::kConsistencyCheck), "consistency_check");
  EXPECT_EQ(StageName(Stage::kUnmasking), "unmasking");
  EXPECT_EQ(StageName(Stage::kClearUpload), "clear_upload");
  EXPECT_EQ(StageName(Stage::kResult), "result");
  EXPECT_EQ(StageName(Stage::kAbort), "abort");
  EXPECT_EQ(StageName(Stage::kOther), "other");
}

TEST(TrafficTest, CounterSumsPerStageAndDirection) {
  TrafficCounter t;
  t.AddUp(Stage::kMaskedInput, 100);
  t.AddUp(Stage::kMaskedInput, 50);
  t.AddUp(Stage::kAdvertiseKeys, 7);
  t.AddDown(Stage::kTask, 1000);
  t.AddDown(Stage::kResult, 3);
  EXPECT_EQ(t.up(Stage::kMaskedInput), 150);
  EXPECT_EQ(t.down(Stage::kMaskedInput), 0);
  EXPECT_EQ(t.total_up(), 157);
  EXPECT_EQ(t.total_down(), 1003);
  t.AddChunksUp(3);
  t.AddChunksDown(2);
  t.AddChunksDown(2);
  EXPECT_EQ(t.chunks_up(), 3);
  EXPECT_EQ(t.chunks_down(), 4);
  t.Reset();
  EXPECT_EQ(t.chunks_down(), 0);
  EXPECT_EQ(t.total_up(), 0);
  EXPECT_EQ(t.total_down(), 0);
}

}  // namespace
}  // namespace fedmf::wire
