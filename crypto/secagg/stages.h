// The stages of a SecAgg session in protocol order and the one table of their names that every
// layer reads instead of spelling its own: the display name (server errors, the coordinator's
// Admin.Status stage), the snake_case name of the stage's messages (per-stage traffic), and the
// short key of the coordinator's event=round durations and fedmf-loadgen's latency series. Tests
// and scripts parse these strings: changing one changes the logs and Status output.
#ifndef FEDMF_CRYPTO_SECAGG_STAGES_H_
#define FEDMF_CRYPTO_SECAGG_STAGES_H_

#include <cstddef>
#include <iterator>

namespace fedmf::secagg {

// A ServerSession's stage: one of the five protocol stages (kAdvertiseKeys..kUnmasking, each
// collecting the clients' answers to it), or an end.
enum class ServerStage {
  kAdvertiseKeys,     // collecting AdvertiseKeys
  kShareKeys,         // collecting ShareKeysResponse
  kMaskedInput,       // collecting MaskedInput
  kConsistencyCheck,  // collecting ConsistencyCheckResponse
  kUnmasking,         // collecting UnmaskingResponse
  kCompleted,
  kAborted,
};

struct StageNames {
  ServerStage stage;
  const char* display;       // "AdvertiseKeys"
  const char* message;       // "advertise_keys": the oneof field of its messages (secagg.proto)
  const char* key;           // "advertise"
  const char* duration_key;  // "advertise_s": key + "_s", for event lines
};

// The protocol stages in order: kStages[i].stage == ServerStage(i).
inline constexpr StageNames kStages[] = {
    {ServerStage::kAdvertiseKeys, "AdvertiseKeys", "advertise_keys", "advertise", "advertise_s"},
    {ServerStage::kShareKeys, "ShareKeys", "share_keys", "share_keys", "share_keys_s"},
    {ServerStage::kMaskedInput, "MaskedInput", "masked_input", "masked_input", "masked_input_s"},
    {ServerStage::kConsistencyCheck, "ConsistencyCheck", "consistency_check", "consistency",
     "consistency_s"},
    {ServerStage::kUnmasking, "Unmasking", "unmasking", "unmasking", "unmasking_s"},
};

constexpr bool StagesInProtocolOrder() {
  for (size_t i = 0; i < std::size(kStages); ++i) {
    if (kStages[i].stage != static_cast<ServerStage>(i)) return false;
  }
  return std::size(kStages) == static_cast<size_t>(ServerStage::kCompleted);
}
static_assert(StagesInProtocolOrder());

// The names of `stage`, which must be a protocol stage (not kCompleted or kAborted).
constexpr const StageNames& NamesOf(ServerStage stage) {
  return kStages[static_cast<size_t>(stage)];
}

// The display name of any stage: "AdvertiseKeys", ..., "Completed", "Aborted".
constexpr const char* ServerStageName(ServerStage stage) {
  switch (stage) {
    case ServerStage::kCompleted:
      return "Completed";
    case ServerStage::kAborted:
      return "Aborted";
    default:
      return NamesOf(stage).display;
  }
}

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_STAGES_H_
