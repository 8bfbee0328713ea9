// libFuzzer: a ServerToClient message delivered to client 1 of a 3-client session at each stage.
// Byte 0 picks the stage and whether the message replaces the genuine one or is merged into it
// (merging keeps most fields valid, so checks deep in the handlers are reached). A client may
// abort but must never crash, and must never reveal both shares of one client.
#include <cstddef>
#include <cstdint>
#include <set>

#include "crypto/secagg/client_session.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace {

using fedmf::secagg::ServerStage;

constexpr ServerStage kStages[] = {ServerStage::kShareKeys, ServerStage::kMaskedInput,
                                   ServerStage::kConsistencyCheck, ServerStage::kUnmasking};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const ServerStage stage = kStages[data[0] % 4];
  const bool merge = (data[0] & 4) != 0;
  fedmf::v1::secagg::ServerToClient fuzzed;
  if (!fuzzed.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;

  fedmf::secagg::SessionConfig config;
  config.context = "fuzz";
  config.num_clients = 3;
  config.threshold = 2;
  config.bits = 8;
  config.length = 4;
  config.signatures = true;
  config.consistency_check = true;
  fedmf::secagg::test_util::SessionHarness harness(config);
  if (!harness.status().ok()) __builtin_trap();
  auto messages = harness.AdvanceTo(stage);
  if (!harness.status().ok() || messages.count(1) == 0) __builtin_trap();
  fedmf::v1::secagg::ServerToClient message = messages.at(1);
  if (merge) {
    message.MergeFrom(fuzzed);
  } else {
    message = fuzzed;
  }
  auto reply = harness.client(1).Handle(message);
  if (!reply.ok() || !reply->has_value() || !(*reply)->has_unmasking()) return 0;
  std::set<uint32_t> self_mask_owners;
  for (const auto& s : (*reply)->unmasking().self_mask_shares())
    self_mask_owners.insert(s.owner_id());
  for (const auto& s : (*reply)->unmasking().key_shares()) {
    if (self_mask_owners.count(s.owner_id()) != 0) __builtin_trap();
  }
  return 0;
}
