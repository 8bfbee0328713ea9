#include "tools/secagg_vectors/session_recorder.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "crypto/bit_unpack.h"
#include "crypto/csprng.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/signing_directory.h"
#include "crypto/secagg/stages.h"

namespace fedmf::secagg_vectors {
namespace {

using fedmf::v1::secagg::ClientSessionState;
using fedmf::v1::secagg::ClientToServer;
using secagg::ClientSession;
using secagg::ServerMessage;
using secagg::ServerSession;
using secagg::ServerStage;

std::string StageName(ServerStage stage) {
  for (const secagg::StageNames& names : secagg::kStages) {
    if (names.stage == stage) return names.display;
  }
  return "Ended";
}

std::string Bytes(absl::Span<const uint8_t> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Inputs uniform in [0, 2^bits) from the CSPRNG.
absl::StatusOr<std::vector<uint64_t>> RandomInput(size_t length, int bits) {
  std::vector<uint64_t> input(length);
  for (uint64_t& v : input) {
    uint8_t bytes[8];
    if (absl::Status s = crypto::RandomBytes(bytes); !s.ok()) return s;
    v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{bytes[i]} << (8 * i);
    v &= crypto::internal::LowBitsMask(bits);
  }
  return input;
}

class Recorder {
 public:
  Recorder(const secagg::SessionConfig& config, std::set<uint32_t> drop)
      : drop_(std::move(drop)), directory_(std::make_shared<secagg::MapSigningKeyDirectory>()) {
    out_.config = config;
  }

  absl::StatusOr<RecordedSession> Run(const std::vector<uint32_t>& ids) {
    for (uint32_t id : ids) {
      if (absl::Status s = AddClient(id); !s.ok()) return s;
    }
    absl::StatusOr<std::unique_ptr<ServerSession>> server =
        ServerSession::Create(out_.config, ids, directory_);
    if (!server.ok()) return server.status();
    server_ = std::move(*server);
    server_->set_unmasking_threads(1);

    for (auto& [id, c] : recorded_) {
      absl::StatusOr<ClientToServer> advertise = clients_.at(id)->Start();
      if (!advertise.ok()) return advertise.status();
      if (absl::Status s = Export(c.id, c.after_advertise); !s.ok()) return s;
      if (absl::Status s = ToServer(c.id, *advertise); !s.ok()) return s;
    }
    while (true) {
      absl::StatusOr<std::vector<ServerMessage>> requests = server_->CloseStage();
      if (!requests.ok()) return requests.status();
      if (server_->stage() == ServerStage::kAborted) return server_->status();
      if (server_->stage() == ServerStage::kCompleted) break;
      if (server_->stage() == ServerStage::kShareKeys) out_.session_id = server_->session_id();
      for (ServerMessage& m : *requests) {
        if (server_->stage() == ServerStage::kMaskedInput && drop_.contains(m.client_id)) {
          if (absl::Status s = server_->MarkDropped(m.client_id); !s.ok()) return s;
          continue;
        }
        if (absl::Status s = ToClient(m); !s.ok()) return s;
      }
    }
    absl::StatusOr<std::vector<uint64_t>> sum = server_->result();
    if (!sum.ok()) return sum.status();
    out_.sum = std::move(*sum);
    out_.included = server_->IncludedClients();
    for (auto& [id, c] : recorded_) out_.clients.push_back(std::move(c));
    return std::move(out_);
  }

 private:
  absl::Status AddClient(uint32_t id) {
    RecordedClient c;
    c.id = id;
    absl::StatusOr<crypto::Ed25519PrivateKey> signing = crypto::Ed25519PrivateKey::Generate();
    if (!signing.ok()) return signing.status();
    c.signing_seed = Bytes(signing->seed().span());
    c.signing_public_key = Bytes(signing->public_key().bytes());
    directory_->Add(id, signing->public_key());
    absl::StatusOr<std::vector<uint64_t>> input = RandomInput(out_.config.length, out_.config.bits);
    if (!input.ok()) return input.status();
    c.input = *input;
    absl::StatusOr<std::unique_ptr<ClientSession>> session = ClientSession::Create(
        out_.config, secagg::ClientIdentity{id, std::move(*signing)}, directory_);
    if (!session.ok()) return session.status();
    if (absl::Status s = (*session)->SetInput(c.input); !s.ok()) return s;
    clients_[id] = std::move(*session);
    recorded_[id] = std::move(c);
    return absl::OkStatus();
  }

  absl::Status Export(uint32_t id, ClientSessionState& into) {
    absl::StatusOr<ClientSessionState> state = clients_.at(id)->Export();
    if (!state.ok()) return state.status();
    into = std::move(*state);
    return absl::OkStatus();
  }

  // Delivers a client message to the server, which must accept it.
  absl::Status ToServer(uint32_t id, const ClientToServer& message) {
    RecordedMessage r;
    r.stage = StageName(server_->stage());
    r.client = id;
    r.client_message = message;
    out_.messages.push_back(std::move(r));
    absl::StatusOr<std::vector<ServerMessage>> answer = server_->HandleMessage(id, message);
    if (!answer.ok()) return answer.status();
    if (!answer->empty()) {
      return absl::InternalError(
          absl::StrFormat("the server rejected client %d: %s", id, server_->DropReason(id)));
    }
    return absl::OkStatus();
  }

  // Delivers a server request to its client and the client's reply to the server.
  absl::Status ToClient(const ServerMessage& m) {
    RecordedMessage r;
    r.stage = StageName(server_->stage());
    r.from_server = true;
    r.client = m.client_id;
    r.server_message = m.message;
    out_.messages.push_back(std::move(r));
    ClientSession& session = *clients_.at(m.client_id);
    absl::StatusOr<std::optional<ClientToServer>> reply = session.Handle(m.message);
    if (!reply.ok()) return reply.status();
    if (session.stage() == secagg::ClientStage::kAborted) {
      return absl::InternalError(
          absl::StrFormat("client %d aborted: %s", m.client_id, session.abort_reason()));
    }
    if (!reply->has_value()) {
      return absl::InternalError(absl::StrFormat("client %d did not answer", m.client_id));
    }
    RecordedClient& c = recorded_.at(m.client_id);
    if (m.message.has_share_keys()) {
      if (absl::Status s = Export(c.id, c.after_share_keys); !s.ok()) return s;
    } else if (m.message.has_masked_input()) {
      if (absl::Status s = Export(c.id, c.after_masked_input); !s.ok()) return s;
      c.sent_masked_input = true;
    }
    return ToServer(m.client_id, **reply);
  }

  std::set<uint32_t> drop_;
  std::shared_ptr<secagg::MapSigningKeyDirectory> directory_;
  std::map<uint32_t, std::unique_ptr<ClientSession>> clients_;
  std::map<uint32_t, RecordedClient> recorded_;  // ascending id
  std::unique_ptr<ServerSession> server_;
  RecordedSession out_;
};

}  // namespace

absl::StatusOr<RecordedSession> RecordSession(const secagg::SessionConfig& config,
                                              const std::vector<uint32_t>& ids,
                                              const std::set<uint32_t>& drop_after_share_keys) {
  Recorder recorder(config, drop_after_share_keys);
  return recorder.Run(ids);
}

}  // namespace fedmf::secagg_vectors
