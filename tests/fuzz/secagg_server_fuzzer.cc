// libFuzzer: a ClientToServer message from client 1 delivered to the server of a 3-client session
// at each stage (byte 0: stage, and raw or merged into client 1's genuine reply), the other
// clients answering genuinely; then the stage is closed and, if the session completed, the
// result read. The server may reject the message or abort but must never crash.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "crypto/secagg/server_session.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace {

using fedmf::secagg::ServerStage;

constexpr ServerStage kStages[] = {ServerStage::kAdvertiseKeys, ServerStage::kShareKeys,
                                   ServerStage::kMaskedInput, ServerStage::kConsistencyCheck,
                                   ServerStage::kUnmasking};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const ServerStage stage = kStages[data[0] % 5];
  const bool merge = (data[0] & 8) != 0;
  fedmf::v1::secagg::ClientToServer fuzzed;
  if (!fuzzed.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;

  fedmf::secagg::SessionConfig config;
  config.context = "fuzz";
  config.num_clients = 3;
  config.threshold = 2;
  config.bits = 12;
  config.length = 5;
  config.signatures = true;
  config.consistency_check = true;
  if (stage == ServerStage::kAdvertiseKeys) {
    auto server = fedmf::secagg::ServerSession::Create(
        config, {1, 2, 3}, std::make_shared<fedmf::secagg::MapSigningKeyDirectory>());
    if (!server.ok()) __builtin_trap();
    (void)(*server)->HandleMessage(1, fuzzed);
    (void)(*server)->CloseStage();
    return 0;
  }
  fedmf::secagg::test_util::SessionHarness harness(config);
  if (!harness.status().ok()) __builtin_trap();
  auto messages = harness.AdvanceTo(stage);
  if (!harness.status().ok() || messages.count(1) == 0) __builtin_trap();
  auto own = messages.extract(1);
  harness.Deliver(messages);
  fedmf::v1::secagg::ClientToServer message;
  if (merge) {
    auto genuine = harness.client(1).Handle(own.mapped());
    if (genuine.ok() && genuine->has_value()) message = **genuine;
    message.MergeFrom(fuzzed);
  } else {
    message = fuzzed;
  }
  fedmf::secagg::ServerSession& server = harness.server();
  (void)server.HandleMessage(1, message);
  while (server.stage() != ServerStage::kCompleted && server.stage() != ServerStage::kAborted) {
    auto next = server.CloseStage();
    if (!next.ok()) __builtin_trap();
    std::map<uint32_t, fedmf::v1::secagg::ServerToClient> forward;
    for (auto& m : *next) {
      if (m.client_id != 1) forward[m.client_id] = std::move(m.message);
    }
    harness.Deliver(forward);
  }
  (void)server.result();
  return 0;
}
