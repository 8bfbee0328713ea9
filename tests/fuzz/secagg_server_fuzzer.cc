// libFuzzer: a ClientToServer message from client 1 delivered to the server of a 3-client session
// at each stage (byte 0: stage, and raw or merged into client 1's genuine reply), the other
// clients answering genuinely; then the stage is closed and, if the session completed, the
// result read. With bit 4 of byte 0 in the MaskedInput stage, the rest is instead a front's
// partial sum (members and their unusable lists, then raw bytes for the sum, or with the merge bit
// the genuine sum of the named clients' masked inputs), the clients it does not name answering
// alone (corpus/secagg_server_fuzzer/partial_sum_of_all_three: byte 0 = 27, clients 1, 2, 3). The
// server may refuse the message or abort but must never crash, and a session whose masked inputs
// all came from the clients must never complete with a wrong sum.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/partial_sum.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace {

using fedmf::secagg::ServerStage;

constexpr ServerStage kStages[] = {ServerStage::kAdvertiseKeys, ServerStage::kShareKeys,
                                   ServerStage::kMaskedInput, ServerStage::kConsistencyCheck,
                                   ServerStage::kUnmasking};

fedmf::secagg::SessionConfig Config() {
  fedmf::secagg::SessionConfig config;
  config.context = "fuzz";
  config.num_clients = 3;
  config.threshold = 2;
  config.bits = 12;
  config.length = 5;
  config.signatures = true;
  config.consistency_check = true;
  return config;
}

// Closes the stages that remain, forwarding the server's messages to the clients except `mute`.
void Finish(fedmf::secagg::test_util::SessionHarness& harness, uint32_t mute) {
  fedmf::secagg::ServerSession& server = harness.server();
  while (server.stage() != ServerStage::kCompleted && server.stage() != ServerStage::kAborted) {
    auto next = server.CloseStage();
    if (!next.ok()) __builtin_trap();
    std::map<uint32_t, fedmf::v1::secagg::ServerToClient> forward;
    for (auto& m : *next) {
      if (m.client_id != mute) forward[m.client_id] = std::move(m.message);
    }
    harness.Deliver(forward);
  }
  (void)server.result();
}

// A partial sum for `harness`'s session in its MaskedInput stage (`requests` undelivered): see the
// file comment. Each client's genuine masked input is computed; those not named go alone.
void FeedPartialSum(fedmf::secagg::test_util::SessionHarness& harness,
                    const fedmf::secagg::SessionConfig& config,
                    std::map<uint32_t, fedmf::v1::secagg::ServerToClient>& requests, bool genuine,
                    FuzzedDataProvider& fuzz) {
  std::map<uint32_t, fedmf::v1::secagg::ClientToServer> inputs;
  for (auto& [id, request] : requests) {
    auto reply = harness.client(id).Handle(request);
    if (!reply.ok() || !reply->has_value()) __builtin_trap();
    inputs[id] = **reply;
  }
  fedmf::secagg::PartialSum partial;
  std::set<uint32_t> named;
  const int members = fuzz.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < members; ++i) {
    fedmf::secagg::PartialSum::Member member{fuzz.ConsumeIntegralInRange<uint32_t>(0, 4), {}};
    const int unusable = fuzz.ConsumeIntegralInRange(0, 3);
    for (int j = 0; j < unusable; ++j) {
      member.unusable_shares_from.push_back(fuzz.ConsumeIntegralInRange<uint32_t>(0, 4));
    }
    named.insert(member.id);
    partial.members.push_back(std::move(member));
  }
  if (genuine) {
    auto sum = fedmf::secagg::MaskAccumulator::Create(config.bits, config.length);
    if (!sum.ok()) __builtin_trap();
    for (uint32_t id : named) {
      if (inputs.contains(id)) {
        const std::string& packed = inputs[id].masked_input().packed();
        if (!sum->AddPacked(fedmf::secagg::AsBytes(packed)).ok()) __builtin_trap();
      }
    }
    partial.packed = sum->Pack().value();
  } else {
    partial.packed = fuzz.ConsumeRemainingBytesAsString();
  }
  fedmf::secagg::ServerSession& server = harness.server();
  (void)server.AcceptMaskedInputSum(partial);
  for (const auto& [id, input] : inputs) {
    if (!named.contains(id)) (void)server.HandleMessage(id, input);
  }
  Finish(harness, /*mute=*/0);
  if (!genuine || server.stage() != ServerStage::kCompleted) return;
  // Client i's input is the constant i: the sum of the included ids in every coordinate.
  uint64_t total = 0;
  for (uint32_t id : server.IncludedClients()) total += id;
  const std::vector<uint64_t> sum = server.result().value();
  for (uint64_t v : sum) {
    if (v != total % (uint64_t{1} << config.bits)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const ServerStage stage = kStages[data[0] % 5];
  const bool merge = (data[0] & 8) != 0;
  if (stage == ServerStage::kMaskedInput && (data[0] & 16) != 0) {
    const fedmf::secagg::SessionConfig config = Config();
    fedmf::secagg::test_util::SessionHarness harness(config);
    if (!harness.status().ok()) __builtin_trap();
    auto requests = harness.AdvanceTo(stage);
    if (!harness.status().ok() || requests.size() != 3) __builtin_trap();
    FuzzedDataProvider fuzz(data + 1, size - 1);
    FeedPartialSum(harness, config, requests, merge, fuzz);
    return 0;
  }
  fedmf::v1::secagg::ClientToServer fuzzed;
  if (!fuzzed.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;

  const fedmf::secagg::SessionConfig config = Config();
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
  (void)harness.server().HandleMessage(1, message);
  Finish(harness, /*mute=*/1);
  return 0;
}
