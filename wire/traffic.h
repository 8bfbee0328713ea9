// Per-stage accounting of federation traffic: the stage of a round a (whole, unchunked) message
// belongs to, and a counter of serialized bytes per stage and direction. The coordinator counts
// what each participant sent and received; a chunked message counts the bytes of its chunks.
#ifndef FEDMF_WIRE_TRAFFIC_H_
#define FEDMF_WIRE_TRAFFIC_H_

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::wire {

// In protocol order. A SecAgg stage's download is the request that opens it (ShareKeysRequest,
// MaskedInputRequest, ...), its upload the participants' answers; the task (plan and model: a
// RoundTask) is the download that opens AdvertiseKeys. An evaluation round's messages fall in the
// same stages; the coordinator counts them as a round of their own.
enum class Stage {
  kTask,
  kAdvertiseKeys,
  kShareKeys,
  kMaskedInput,
  kConsistencyCheck,
  kUnmasking,
  kClearUpload,
  kResult,
  kAbort,
  kOther,  // chunks classified on their own, empty messages
};
inline constexpr int kNumStages = 10;

// snake_case: task, advertise_keys, share_keys, masked_input, consistency_check, unmasking,
// clear_upload, result, abort, other.
absl::string_view StageName(Stage stage);
Stage StageOf(const v1::ServerMessage& message);
Stage StageOf(const v1::ClientMessage& message);
// A participant's SecAgg message, as a front relays it to the combiner (server/front_fleet.h).
Stage StageOf(const v1::ParticipantToServer& message);

class TrafficCounter {
 public:
  void AddUp(Stage stage, int64_t bytes) { up_[static_cast<int>(stage)] += bytes; }
  void AddDown(Stage stage, int64_t bytes) { down_[static_cast<int>(stage)] += bytes; }
  // Chunk messages (their bytes are in the stage of the message they carry).
  void AddChunksUp(int64_t n) { chunks_up_ += n; }
  void AddChunksDown(int64_t n) { chunks_down_ += n; }
  int64_t up(Stage stage) const { return up_[static_cast<int>(stage)]; }
  int64_t down(Stage stage) const { return down_[static_cast<int>(stage)]; }
  int64_t chunks_up() const { return chunks_up_; }
  int64_t chunks_down() const { return chunks_down_; }
  int64_t total_up() const;
  int64_t total_down() const;
  void Reset() { *this = TrafficCounter(); }

 private:
  std::array<int64_t, kNumStages> up_{}, down_{};
  int64_t chunks_up_ = 0, chunks_down_ = 0;
};

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_TRAFFIC_H_
