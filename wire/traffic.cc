#include "wire/traffic.h"

#include <numeric>

#include "crypto/secagg/stages.h"

namespace fedmf::wire {
namespace {

Stage StageOf(const v1::secagg::ServerToClient& m) {
  switch (m.message_case()) {
    case v1::secagg::ServerToClient::kShareKeys:
      return Stage::kShareKeys;
    case v1::secagg::ServerToClient::kMaskedInput:
      return Stage::kMaskedInput;
    case v1::secagg::ServerToClient::kConsistencyCheck:
      return Stage::kConsistencyCheck;
    case v1::secagg::ServerToClient::kUnmasking:
      return Stage::kUnmasking;
    case v1::secagg::ServerToClient::kAbort:
      return Stage::kAbort;
    default:
      return Stage::kOther;
  }
}

Stage StageOf(const v1::secagg::ClientToServer& m) {
  switch (m.message_case()) {
    case v1::secagg::ClientToServer::kAdvertiseKeys:
      return Stage::kAdvertiseKeys;
    case v1::secagg::ClientToServer::kShareKeys:
      return Stage::kShareKeys;
    case v1::secagg::ClientToServer::kMaskedInput:
      return Stage::kMaskedInput;
    case v1::secagg::ClientToServer::kConsistencyCheck:
      return Stage::kConsistencyCheck;
    case v1::secagg::ClientToServer::kUnmasking:
      return Stage::kUnmasking;
    case v1::secagg::ClientToServer::kAbort:
      return Stage::kAbort;
    default:
      return Stage::kOther;
  }
}

}  // namespace

absl::string_view StageName(Stage stage) {
  using secagg::NamesOf;
  using secagg::ServerStage;
  // The SecAgg stages by the name of their messages (crypto/secagg/stages.h), the rest as here.
  static constexpr absl::string_view kNames[kNumStages] = {
      "task",
      NamesOf(ServerStage::kAdvertiseKeys).message,
      NamesOf(ServerStage::kShareKeys).message,
      NamesOf(ServerStage::kMaskedInput).message,
      NamesOf(ServerStage::kConsistencyCheck).message,
      NamesOf(ServerStage::kUnmasking).message,
      "clear_upload",
      "result",
      "abort",
      "other"};
  return kNames[static_cast<int>(stage)];
}

Stage StageOf(const v1::ServerMessage& message) {
  switch (message.message_case()) {
    case v1::ServerMessage::kTask:
      return Stage::kTask;
    case v1::ServerMessage::kSecagg:
      return StageOf(message.secagg().message());
    case v1::ServerMessage::kResult:
      return Stage::kResult;
    default:
      return Stage::kOther;
  }
}

Stage StageOf(const v1::ParticipantToServer& message) { return StageOf(message.message()); }

Stage StageOf(const v1::ClientMessage& message) {
  switch (message.message_case()) {
    case v1::ClientMessage::kSecagg:
      return StageOf(message.secagg());
    case v1::ClientMessage::kClearUpload:
      return Stage::kClearUpload;
    default:
      return Stage::kOther;
  }
}

int64_t TrafficCounter::total_up() const {
  return std::accumulate(up_.begin(), up_.end(), int64_t{0});
}

int64_t TrafficCounter::total_down() const {
  return std::accumulate(down_.begin(), down_.end(), int64_t{0});
}

}  // namespace fedmf::wire
