#include "tests/unit/crypto/secagg_driver.h"

#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "crypto/bit_unpack.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/signing_directory.h"

namespace fedmf::secagg::test_util {

using fedmf::v1::secagg::ClientToServer;

namespace {

DropPoint StageDropPoint(ServerStage stage) {
  switch (stage) {
    case ServerStage::kShareKeys:
      return DropPoint::kShareKeys;
    case ServerStage::kMaskedInput:
      return DropPoint::kMaskedInput;
    case ServerStage::kConsistencyCheck:
      return DropPoint::kConsistencyCheck;
    case ServerStage::kUnmasking:
      return DropPoint::kUnmasking;
    default:
      return DropPoint::kNever;
  }
}

}  // namespace

DriverResult RunSession(const DriverOptions& o) {
  DriverResult r;
  const SessionConfig& config = o.config;
  std::vector<uint32_t> ids = o.ids;
  if (ids.empty()) {
    for (int i = 1; i <= config.num_clients; ++i) ids.push_back(static_cast<uint32_t>(i));
  }
  auto directory = std::make_shared<MapSigningKeyDirectory>();
  std::map<uint32_t, std::unique_ptr<ClientSession>> clients;
  std::mt19937_64 rng(o.input_seed);
  const uint64_t mask = crypto::internal::LowBitsMask(config.bits);
  for (uint32_t id : ids) {
    ClientIdentity identity{id, std::nullopt};
    if (config.signatures) {
      absl::StatusOr<crypto::Ed25519PrivateKey> key = crypto::Ed25519PrivateKey::Generate();
      if (!key.ok()) {
        r.status = key.status();
        return r;
      }
      directory->Add(id, key->public_key());
      identity.signing_key = std::move(*key);
    }
    absl::StatusOr<std::unique_ptr<ClientSession>> client =
        ClientSession::Create(config, std::move(identity), directory);
    if (!client.ok()) {
      r.status = client.status();
      return r;
    }
    std::vector<uint64_t> input(config.length);
    for (uint64_t& v : input) v = rng() & mask;
    if (auto it = o.fixed_inputs.find(id); it != o.fixed_inputs.end()) input = it->second;
    if (absl::Status s = (*client)->SetInput(input); !s.ok()) {
      r.status = s;
      return r;
    }
    r.inputs[id] = std::move(input);
    clients[id] = std::move(*client);
  }
  absl::StatusOr<std::unique_ptr<ServerSession>> server_or =
      ServerSession::Create(config, ids, directory);
  if (!server_or.ok()) {
    r.status = server_or.status();
    return r;
  }
  ServerSession& server = **server_or;

  auto drop_point = [&](uint32_t id) {
    auto it = o.drops.find(id);
    return it == o.drops.end() ? DropPoint::kNever : it->second;
  };
  auto stops_at = [&](uint32_t id, DropPoint p) {
    const DropPoint d = drop_point(id);
    return d != DropPoint::kNever && static_cast<int>(d) <= static_cast<int>(p);
  };
  auto deliver_to_server = [&](uint32_t id, ClientToServer message) {
    if (o.tamper_client) o.tamper_client(id, message);
    if (message.has_masked_input()) r.sent_masked_input.push_back(id);
    // A rejected message drops the client inside the server; the run goes on.
    (void)server.HandleMessage(id, message);
  };

  for (uint32_t id : ids) {
    if (stops_at(id, DropPoint::kAdvertise)) {
      if (o.report_drops) (void)server.MarkDropped(id);
      continue;
    }
    absl::StatusOr<ClientToServer> advertise = clients[id]->Start();
    if (!advertise.ok()) {
      r.status = advertise.status();
      return r;
    }
    deliver_to_server(id, std::move(*advertise));
  }

  while (true) {
    absl::StatusOr<std::vector<ServerMessage>> messages = server.CloseStage();
    if (!messages.ok()) {
      r.status = messages.status();
      break;
    }
    if (server.stage() == ServerStage::kCompleted) break;
    const DropPoint point = StageDropPoint(server.stage());
    std::vector<ServerMessage>& batch = *messages;
    std::vector<bool> skip(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      skip[i] = point != DropPoint::kNever && stops_at(batch[i].client_id, point);
      if (!skip[i] && o.tamper_server) o.tamper_server(batch[i].client_id, batch[i].message);
    }
    std::vector<absl::StatusOr<std::optional<ClientToServer>>> replies(batch.size());
    auto work = [&](size_t first) {
      for (size_t i = first; i < batch.size(); i += static_cast<size_t>(o.threads)) {
        if (!skip[i]) replies[i] = clients[batch[i].client_id]->Handle(batch[i].message);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < o.threads; ++t) pool.emplace_back(work, static_cast<size_t>(t));
    work(0);
    for (std::thread& t : pool) t.join();
    if (server.stage() == ServerStage::kAborted) {
      r.status = server.status();
      break;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      const uint32_t id = batch[i].client_id;
      if (skip[i]) {
        if (o.report_drops) (void)server.MarkDropped(id);
        continue;
      }
      if (!replies[i].ok()) {
        r.status = replies[i].status();
        return r;
      }
      if (replies[i]->has_value()) deliver_to_server(id, std::move(**replies[i]));
    }
  }

  if (server.stage() == ServerStage::kCompleted) {
    absl::StatusOr<std::vector<uint64_t>> sum = server.result();
    r.status = sum.status();
    if (sum.ok()) r.sum = std::move(*sum);
  } else if (r.status.ok()) {
    r.status = server.status();
  }
  if (server.graph() != nullptr) r.complete_graph = server.graph()->complete();
  r.included = server.IncludedClients();
  r.expected.assign(config.length, 0);
  for (uint32_t id : r.included) {
    const std::vector<uint64_t>& x = r.inputs[id];
    for (size_t i = 0; i < x.size(); ++i) r.expected[i] = (r.expected[i] + x[i]) & mask;
  }
  for (const auto& [id, client] : clients) {
    if (client->stage() == ClientStage::kAborted) r.client_aborts[id] = client->abort_reason();
    if (client->stage() == ClientStage::kCompleted) ++r.completed_clients;
  }
  return r;
}

}  // namespace fedmf::secagg::test_util
