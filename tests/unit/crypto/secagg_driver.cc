#include "tests/unit/crypto/secagg_driver.h"

#include <algorithm>
#include <chrono>
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
  const uint64_t mask = crypto::internal::LowBitsMask(config.bits);
  // Client inputs, regenerated (not stored) for the expected sum at the end.
  auto make_input = [&o, &config, mask](uint32_t id, std::mt19937_64& rng) {
    std::vector<uint64_t> input(config.length);
    for (uint64_t& v : input) v = rng() & mask;
    if (auto it = o.fixed_inputs.find(id); it != o.fixed_inputs.end()) input = it->second;
    return input;
  };
  std::mt19937_64 rng(o.input_seed);
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
    if (absl::Status s = (*client)->SetInput(make_input(id, rng)); !s.ok()) {
      r.status = s;
      return r;
    }
    clients[id] = std::move(*client);
  }
  absl::StatusOr<std::unique_ptr<ServerSession>> server_or =
      ServerSession::Create(config, ids, directory);
  if (!server_or.ok()) {
    r.status = server_or.status();
    return r;
  }
  ServerSession& server = **server_or;
  if (o.unmasking_threads > 0) server.set_unmasking_threads(o.unmasking_threads);

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
    if (o.record) r.transcript.received.emplace_back(id, message);
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
    const auto close_start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<ServerMessage>> messages = server.CloseStage();
    r.close_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - close_start).count());
    if (!messages.ok()) {
      r.status = messages.status();
      break;
    }
    if (server.stage() == ServerStage::kCompleted) break;
    const bool aborted = server.stage() == ServerStage::kAborted;
    const DropPoint point = StageDropPoint(server.stage());
    std::vector<ServerMessage> all = std::move(*messages);
    const size_t batch_size = o.batch == 0 ? all.size() : o.batch;
    for (size_t first = 0; first < all.size(); first += batch_size) {
      const size_t count = std::min(batch_size, all.size() - first);
      absl::Span<ServerMessage> batch = absl::MakeSpan(all).subspan(first, count);
      std::vector<bool> skip(batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        skip[i] = point != DropPoint::kNever && stops_at(batch[i].client_id, point);
        if (!skip[i] && o.tamper_server) o.tamper_server(batch[i].client_id, batch[i].message);
        if (o.record) r.transcript.sent.emplace_back(batch[i].client_id, batch[i].message);
      }
      std::vector<absl::StatusOr<std::optional<ClientToServer>>> replies(batch.size());
      auto work = [&](size_t start) {
        for (size_t i = start; i < batch.size(); i += static_cast<size_t>(o.threads)) {
          if (!skip[i]) replies[i] = clients[batch[i].client_id]->Handle(batch[i].message);
        }
      };
      std::vector<std::thread> pool;
      for (int t = 1; t < o.threads; ++t) pool.emplace_back(work, static_cast<size_t>(t));
      work(0);
      for (std::thread& t : pool) t.join();
      if (aborted) continue;
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
      for (size_t i = 0; i < batch.size(); ++i) batch[i].message.Clear();
    }
    if (aborted) {
      r.status = server.status();
      break;
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
  r.misbehaviour = server.misbehaviour();
  r.expected.assign(config.length, 0);
  std::mt19937_64 replay(o.input_seed);
  for (uint32_t id : ids) {
    const std::vector<uint64_t> x = make_input(id, replay);
    if (o.record) r.transcript.inputs[id] = x;
    if (!std::binary_search(r.included.begin(), r.included.end(), id)) continue;
    for (size_t i = 0; i < x.size(); ++i) r.expected[i] = (r.expected[i] + x[i]) & mask;
  }
  for (const auto& [id, client] : clients) {
    if (client->stage() == ClientStage::kAborted) r.client_aborts[id] = client->abort_reason();
    if (client->stage() == ClientStage::kCompleted) ++r.completed_clients;
  }
  return r;
}

SessionHarness::SessionHarness(const SessionConfig& config, std::vector<uint32_t> without_input)
    : directory_(std::make_shared<MapSigningKeyDirectory>()) {
  std::vector<uint32_t> ids;
  for (int i = 1; i <= config.num_clients; ++i) ids.push_back(static_cast<uint32_t>(i));
  for (uint32_t id : ids) {
    ClientIdentity identity{id, std::nullopt};
    if (config.signatures) {
      absl::StatusOr<crypto::Ed25519PrivateKey> key = crypto::Ed25519PrivateKey::Generate();
      if (!key.ok()) {
        status_ = key.status();
        return;
      }
      directory_->Add(id, key->public_key());
      signing_seeds_[id] = key->seed().Clone();
      identity.signing_key = std::move(*key);
    }
    absl::StatusOr<std::unique_ptr<ClientSession>> client =
        ClientSession::Create(config, std::move(identity), directory_);
    if (!client.ok()) {
      status_ = client.status();
      return;
    }
    const uint64_t value = id & crypto::internal::LowBitsMask(config.bits);
    const bool skip_input =
        std::find(without_input.begin(), without_input.end(), id) != without_input.end();
    if (absl::Status s = skip_input
                             ? absl::OkStatus()
                             : (*client)->SetInput(std::vector<uint64_t>(config.length, value));
        !s.ok()) {
      status_ = s;
      return;
    }
    clients_[id] = std::move(*client);
  }
  absl::StatusOr<std::unique_ptr<ServerSession>> server =
      ServerSession::Create(config, ids, directory_);
  if (!server.ok()) {
    status_ = server.status();
    return;
  }
  server_ = std::move(*server);
  for (uint32_t id : ids) {
    absl::StatusOr<ClientToServer> advertise = clients_[id]->Start();
    if (!advertise.ok()) {
      status_ = advertise.status();
      return;
    }
    replies_[id] = *advertise;
    if (absl::Status s = Accepted(*server_, id, *advertise); !s.ok()) status_ = s;
  }
}

std::map<uint32_t, fedmf::v1::secagg::ServerToClient> SessionHarness::AdvanceTo(
    ServerStage target) {
  std::map<uint32_t, fedmf::v1::secagg::ServerToClient> out;
  while (status_.ok() && server_->stage() != target) {
    absl::StatusOr<std::vector<ServerMessage>> messages = server_->CloseStage();
    if (!messages.ok()) {
      status_ = messages.status();
      break;
    }
    out.clear();
    for (ServerMessage& m : *messages) out[m.client_id] = std::move(m.message);
    if (server_->stage() == target || server_->stage() == ServerStage::kAborted) break;
    Deliver(out);
  }
  return out;
}

void SessionHarness::Deliver(
    const std::map<uint32_t, fedmf::v1::secagg::ServerToClient>& messages) {
  for (const auto& [id, message] : messages) {
    absl::StatusOr<std::optional<ClientToServer>> reply = clients_.at(id)->Handle(message);
    if (!reply.ok()) {
      status_ = reply.status();
      return;
    }
    if (!reply->has_value()) continue;
    replies_[id] = **reply;
    (void)server_->HandleMessage(id, **reply);
  }
}

absl::StatusOr<ClientIdentity> SessionHarness::Identity(uint32_t id) const {
  ClientIdentity identity{id, std::nullopt};
  auto it = signing_seeds_.find(id);
  if (it != signing_seeds_.end()) {
    absl::StatusOr<crypto::Ed25519PrivateKey> key =
        crypto::Ed25519PrivateKey::FromSeed(it->second.span());
    if (!key.ok()) return key.status();
    identity.signing_key = std::move(*key);
  }
  return identity;
}

absl::Status SessionHarness::RestoreClient(uint32_t id) {
  absl::StatusOr<fedmf::v1::secagg::ClientSessionState> state = clients_.at(id)->Export();
  if (!state.ok()) return state.status();
  std::string bytes = state->SerializeAsString();
  WipeClientSessionState(*state);
  clients_.at(id).reset();  // the original is gone, as after an app restart
  fedmf::v1::secagg::ClientSessionState parsed;
  if (!parsed.ParseFromString(bytes)) return absl::InternalError("exported state does not parse");
  absl::StatusOr<ClientIdentity> identity = Identity(id);
  if (!identity.ok()) return identity.status();
  absl::StatusOr<std::unique_ptr<ClientSession>> restored =
      ClientSession::Restore(parsed, std::move(*identity), directory_);
  if (!restored.ok()) return restored.status();
  clients_.at(id) = std::move(*restored);
  return absl::OkStatus();
}

}  // namespace fedmf::secagg::test_util
