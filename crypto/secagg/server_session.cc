// ServerSession: creation, message dispatch, drops, stage closing and results.
#include "crypto/secagg/server_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ServerToClient;

ServerToClient AbortMessage(absl::string_view reason) {
  ServerToClient out;
  out.mutable_abort()->set_reason(std::string(reason));
  return out;
}

ServerSession::ServerSession(const SessionConfig& config, const std::array<uint8_t, 32>& digest,
                             std::vector<Client> clients,
                             std::shared_ptr<const SigningKeyDirectory> directory,
                             MaskAccumulator sum)
    : config_(config),
      config_digest_(digest),
      clients_(std::move(clients)),
      directory_(std::move(directory)),
      sum_(std::move(sum)) {}

absl::StatusOr<std::unique_ptr<ServerSession>> ServerSession::Create(
    const SessionConfig& config, std::vector<uint32_t> cohort,
    std::shared_ptr<const SigningKeyDirectory> directory) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (cohort.size() != static_cast<size_t>(config.num_clients)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "SecAgg server: cohort has %d clients, config says %d", cohort.size(), config.num_clients));
  }
  std::sort(cohort.begin(), cohort.end());
  for (size_t i = 1; i < cohort.size(); ++i) {
    if (cohort[i] == cohort[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("SecAgg server: client %d appears twice in the cohort", cohort[i]));
    }
  }
  if (config.signatures && directory == nullptr) {
    return absl::InvalidArgumentError("SecAgg server: signatures are on but no directory given");
  }
  absl::StatusOr<std::array<uint8_t, 32>> digest = ConfigDigest(config);
  if (!digest.ok()) return digest.status();
  absl::StatusOr<MaskAccumulator> sum = MaskAccumulator::Create(config.bits, config.length);
  if (!sum.ok()) return sum.status();
  std::vector<Client> clients(cohort.size());
  for (size_t i = 0; i < cohort.size(); ++i) {
    clients[i].id = cohort[i];
    clients[i].awaiting = true;
  }
  return std::unique_ptr<ServerSession>(new ServerSession(config, *digest, std::move(clients),
                                                          std::move(directory), std::move(*sum)));
}

ServerSession::Client* ServerSession::Find(uint32_t id) {
  auto it = std::lower_bound(clients_.begin(), clients_.end(), id,
                             [](const Client& c, uint32_t v) { return c.id < v; });
  return it != clients_.end() && it->id == id ? &*it : nullptr;
}

const ServerSession::Client* ServerSession::Find(uint32_t id) const {
  return const_cast<ServerSession*>(this)->Find(id);
}

void ServerSession::Drop(Client& c, std::string reason) {
  if (c.dropped) return;
  c.dropped = true;
  c.awaiting = false;
  c.drop_reason = std::move(reason);
  c.ciphertexts.clear();
  c.ciphertexts.shrink_to_fit();
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::HandleMessage(
    uint32_t client_id, const ClientToServer& message) {
  Client* c = Find(client_id);
  if (c == nullptr) {
    return absl::NotFoundError(absl::StrFormat("client %d is not in the cohort", client_id));
  }
  if (stage_ == ServerStage::kCompleted || stage_ == ServerStage::kAborted) {
    return absl::FailedPreconditionError(
        absl::StrFormat("message from client %d after the session ended", client_id));
  }
  if (c->dropped) {
    return absl::FailedPreconditionError(
        absl::StrFormat("client %d was dropped (%s)", client_id, c->drop_reason));
  }
  if (message.has_abort()) {
    Drop(*c, absl::StrCat("client aborted: ", message.abort().reason()));
    return std::vector<ServerMessage>();
  }
  absl::Status accepted;
  if (!c->awaiting) {
    accepted = absl::InvalidArgumentError(absl::StrFormat(
        "message (case %d) not expected from this client in stage %s (late or repeated)",
        static_cast<int>(message.message_case()), ServerStageName(stage_)));
  } else if (stage_ == ServerStage::kAdvertiseKeys && message.has_advertise_keys()) {
    accepted = AcceptAdvertiseKeys(*c, message.advertise_keys());
  } else if (stage_ == ServerStage::kShareKeys && message.has_share_keys()) {
    accepted = AcceptShareKeys(*c, message.share_keys());
  } else if (stage_ == ServerStage::kMaskedInput && message.has_masked_input()) {
    accepted = AcceptMaskedInput(*c, message.masked_input());
  } else if (stage_ == ServerStage::kConsistencyCheck && message.has_consistency_check()) {
    accepted = AcceptConsistencyCheck(*c, message.consistency_check());
  } else if (stage_ == ServerStage::kUnmasking && message.has_unmasking()) {
    accepted = AcceptUnmasking(*c, message.unmasking());
  } else {
    accepted = absl::InvalidArgumentError(
        absl::StrFormat("unexpected message (case %d) in stage %s",
                        static_cast<int>(message.message_case()), ServerStageName(stage_)));
  }
  if (!accepted.ok()) {
    const std::string reason = absl::StrFormat("client %d: %s", client_id, accepted.message());
    Drop(*c, reason);
    return std::vector<ServerMessage>{{client_id, AbortMessage(reason)}};
  }
  c->awaiting = false;
  return std::vector<ServerMessage>();
}

absl::Status ServerSession::MarkDropped(uint32_t client_id) {
  Client* c = Find(client_id);
  if (c == nullptr) {
    return absl::NotFoundError(absl::StrFormat("client %d is not in the cohort", client_id));
  }
  Drop(*c, absl::StrFormat("dropped in stage %s", ServerStageName(stage_)));
  return absl::OkStatus();
}

bool ServerSession::ReadyToClose() const {
  return std::none_of(clients_.begin(), clients_.end(), [](const Client& c) { return c.awaiting; });
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::CloseStage() {
  if (stage_ != ServerStage::kCompleted && stage_ != ServerStage::kAborted) {
    for (Client& c : clients_) {
      if (c.awaiting) {
        Drop(c, absl::StrFormat("no message before stage %s closed", ServerStageName(stage_)));
      }
    }
  }
  absl::StatusOr<std::vector<ServerMessage>> next;
  switch (stage_) {
    case ServerStage::kAdvertiseKeys:
      next = CloseAdvertiseKeys();
      break;
    case ServerStage::kShareKeys:
      next = CloseShareKeys();
      break;
    case ServerStage::kMaskedInput:
      next = CloseMaskedInput();
      break;
    case ServerStage::kConsistencyCheck:
      next = CloseConsistencyCheck();
      break;
    case ServerStage::kUnmasking:
      if (absl::Status s = CloseUnmasking(); !s.ok()) {
        next = s;
        break;
      }
      stage_ = ServerStage::kCompleted;
      return std::vector<ServerMessage>();
    case ServerStage::kCompleted:
    case ServerStage::kAborted:
      return absl::FailedPreconditionError(
          absl::StrFormat("CloseStage: the session has ended (%s)", ServerStageName(stage_)));
  }
  if (!next.ok()) return AbortAll(next.status());
  for (Client& c : clients_) c.awaiting = false;
  for (const ServerMessage& m : *next) {
    if (!m.message.has_abort()) Find(m.client_id)->awaiting = true;
  }
  return next;
}

std::vector<ServerMessage> ServerSession::Abort(absl::string_view reason) {
  if (stage_ == ServerStage::kCompleted || stage_ == ServerStage::kAborted) return {};
  return AbortAll(absl::CancelledError(reason));
}

std::vector<ServerMessage> ServerSession::AbortAll(const absl::Status& reason) {
  const std::string text = absl::StrFormat("SecAgg session aborted in stage %s: %s",
                                           ServerStageName(stage_), reason.message());
  status_ = absl::AbortedError(text);
  stage_ = ServerStage::kAborted;
  std::vector<ServerMessage> out;
  for (Client& c : clients_) {
    c.awaiting = false;
    c.ciphertexts.clear();
    if (!c.dropped && c.advertised) out.push_back({c.id, AbortMessage(text)});
  }
  revealed_.clear();
  return out;
}

bool ServerSession::Reported(const Client& reporter, uint32_t owner) {
  return std::binary_search(reporter.unusable_from.begin(), reporter.unusable_from.end(), owner);
}

absl::Status ServerSession::CheckReconstructable(bool Client::*holds) {
  const char* stage = ServerStageName(stage_);
  auto live_holder = [holds](const Client& v) { return v.*holds && !v.dropped; };
  // Live holders per owner, before and after the reports: the complete graph's count is global.
  const size_t all_live =
      static_cast<size_t>(std::count_if(clients_.begin(), clients_.end(), live_holder));
  absl::flat_hash_map<uint32_t, size_t> reports;  // owner -> live holders that reported it
  for (const Client& v : clients_) {
    if (!live_holder(v)) continue;
    for (uint32_t owner : v.unusable_from) ++reports[owner];
  }
  std::vector<uint32_t> short_of_holders, culprits;
  size_t first_live = 0;
  for (const Client& u : clients_) {
    if (!u.shared) continue;
    size_t live = all_live;
    if (!graph_->complete()) {
      live = 0;
      for (uint32_t v : Neighborhood(u.id)) live += live_holder(*Find(v)) ? 1 : 0;
    }
    const auto it = reports.find(u.id);
    const size_t reported = it == reports.end() ? 0 : it->second;
    if (live < static_cast<size_t>(config_.threshold)) {
      if (short_of_holders.empty()) first_live = live;
      short_of_holders.push_back(u.id);
    } else if (live - reported < static_cast<size_t>(config_.threshold)) {
      culprits.push_back(u.id);
      misbehaviour_.push_back(
          {u.id,
           absl::StrFormat("%d of its %d live share holders reported its share ciphertexts "
                           "undecryptable, leaving fewer than the threshold %d",
                           reported, live, config_.threshold),
           true});
    }
  }
  if (!culprits.empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "after %s the secrets of client(s) %s cannot be rebuilt: their neighbors reported their "
        "shares unusable",
        stage, absl::StrJoin(culprits, ",")));
  }
  if (!short_of_holders.empty()) {
    if (graph_->complete()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "too few clients left after %s: %d, threshold %d", stage, first_live, config_.threshold));
    }
    return absl::FailedPreconditionError(absl::StrFormat(
        "too few clients left after %s in the neighborhood of client %d: %d, threshold %d", stage,
        short_of_holders.front(), first_live, config_.threshold));
  }
  return absl::OkStatus();
}

absl::Span<const uint32_t> ServerSession::Neighborhood(uint32_t id) const {
  if (graph_->complete()) return graph_->ids();
  return neighborhoods_[*graph_->Rank(id)];
}

absl::StatusOr<std::vector<uint64_t>> ServerSession::result() const {
  if (stage_ == ServerStage::kAborted) return status_;
  if (stage_ != ServerStage::kCompleted) {
    return absl::FailedPreconditionError(
        absl::StrFormat("no result in stage %s", ServerStageName(stage_)));
  }
  return result_;
}

std::vector<uint32_t> ServerSession::IncludedClients() const {
  std::vector<uint32_t> out;
  for (const Client& c : clients_) {
    if (c.masked) out.push_back(c.id);
  }
  return out;
}

std::string ServerSession::DropReason(uint32_t client_id) const {
  const Client* c = Find(client_id);
  return c == nullptr ? std::string() : c->drop_reason;
}

}  // namespace fedmf::secagg
