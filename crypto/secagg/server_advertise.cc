// Server round 0 (AdvertiseKeys): collect the public keys (refusing low-order points) and the
// self-mask commitments, then fix the participants U1, the session id and the neighbor graph, and
// send each client the keys of its closed neighborhood.
#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/x25519.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::AdvertiseKeys;
using fedmf::v1::secagg::ServerToClient;

absl::Status ServerSession::AcceptAdvertiseKeys(Client& c, const AdvertiseKeys& m) {
  if (m.c_public_key().size() != crypto::kX25519KeySize ||
      m.s_public_key().size() != crypto::kX25519KeySize) {
    return Invalid("public keys of %d and %d bytes, need 32", m.c_public_key().size(),
                   m.s_public_key().size());
  }
  if (m.self_mask_commitment().size() != kCommitmentSize) {
    return Invalid("self-mask commitment of %d bytes, need %d", m.self_mask_commitment().size(),
                   kCommitmentSize);
  }
  PublicKeyBytes c_public{}, s_public{};
  Commitment commitment{};
  std::copy(m.c_public_key().begin(), m.c_public_key().end(), c_public.begin());
  std::copy(m.s_public_key().begin(), m.s_public_key().end(), s_public.begin());
  std::copy(m.self_mask_commitment().begin(), m.self_mask_commitment().end(), commitment.begin());
  if (c_public == s_public) return Invalid("the two public keys are equal");
  if (seen_keys_.contains(c_public) || seen_keys_.contains(s_public)) {
    return Invalid("a public key already advertised by another client");
  }
  // A low-order key would make every neighbor's agreement with it fail (or be public): the
  // client that sent it is the culprit, refused here before any neighbor sees the key.
  for (const auto& [name, bytes] : {std::pair{"c", &c_public}, std::pair{"s", &s_public}}) {
    absl::StatusOr<crypto::X25519PublicKey> key = crypto::X25519PublicKey::FromBytes(*bytes);
    absl::Status usable = key.ok() ? crypto::CheckNotLowOrder(*key) : key.status();
    if (!usable.ok()) {
      misbehaviour_.push_back(
          {c.id, absl::StrFormat("it advertised an unusable %s public key (%s)", name,
                                 usable.message()),
           true});
      return Invalid("%s public key: %s", name, usable.message());
    }
  }
  if (config_.signatures) {
    const std::optional<crypto::Ed25519PublicKey> verifier = directory_->Find(c.id);
    if (!verifier.has_value()) return Invalid("not in the signing key directory");
    if (absl::Status s = verifier->Verify(
            AdvertisementMessage(config_digest_, c.id, c_public, s_public, commitment),
            AsBytes(m.signature()));
        !s.ok()) {
      return Invalid("advertisement signature does not verify (%s)", s.message());
    }
  } else if (!m.signature().empty()) {
    return Invalid("a signature although signatures are off");
  }
  seen_keys_.insert(c_public);
  seen_keys_.insert(s_public);
  c.c_public = c_public;
  c.s_public = s_public;
  c.self_mask_commitment = commitment;
  c.advertisement_signature = m.signature();
  c.advertised = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::CloseAdvertiseKeys() {
  std::vector<uint32_t> ids;
  for (Client& c : clients_) {
    c.advertised = c.advertised && !c.dropped;
    if (c.advertised) ids.push_back(c.id);
  }
  if (ids.size() < static_cast<size_t>(config_.threshold)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "too few clients advertised keys: %d, threshold %d", ids.size(), config_.threshold));
  }
  SessionIdBuilder builder(config_digest_, static_cast<uint32_t>(ids.size()));
  for (const Client& c : clients_) {
    if (c.advertised) builder.Add(c.id, c.c_public, c.s_public);
  }
  absl::StatusOr<SessionId> sid = builder.Finish();
  if (!sid.ok()) return sid.status();
  session_id_ = *sid;

  absl::StatusOr<NeighborGraph> graph;
  if (config_.graph == GraphKind::kComplete) {
    graph = NeighborGraph::Complete(ids);
  } else {
    absl::StatusOr<crypto::SecretBytes> seed = HararySeed(session_id_);
    if (!seed.ok()) return seed.status();
    graph = NeighborGraph::Harary(ids, config_.degree, seed->span());
  }
  if (!graph.ok()) return graph.status();
  graph_ = std::move(*graph);
  if (!graph_->complete()) {
    neighborhoods_.reserve(ids.size());
    for (uint32_t id : ids) neighborhoods_.push_back(graph_->ClosedNeighborhood(id));
  }

  auto keys_request = [this](absl::Span<const uint32_t> members) {
    ServerToClient out;
    fedmf::v1::secagg::ShareKeysRequest* request = out.mutable_share_keys();
    request->set_session_id(session_id_.data(), session_id_.size());
    request->set_num_advertised(static_cast<uint32_t>(graph_->size()));
    for (uint32_t id : members) {
      const Client& member = *Find(id);
      fedmf::v1::secagg::ClientKeys* entry = request->add_clients();
      entry->set_client_id(id);
      entry->mutable_keys()->set_c_public_key(member.c_public.data(), member.c_public.size());
      entry->mutable_keys()->set_s_public_key(member.s_public.data(), member.s_public.size());
      entry->mutable_keys()->set_signature(member.advertisement_signature);
      // The advertisement as sent: each member requires the commitment and, with signatures,
      // verifies the signature over it.
      entry->mutable_keys()->set_self_mask_commitment(member.self_mask_commitment.data(),
                                                      member.self_mask_commitment.size());
    }
    return out;
  };
  std::vector<ServerMessage> out;
  out.reserve(ids.size());
  if (graph_->complete()) {
    const ServerToClient request = keys_request(graph_->ids());
    for (uint32_t id : ids) out.push_back({id, request});
  } else {
    for (uint32_t id : ids) out.push_back({id, keys_request(Neighborhood(id))});
  }
  stage_ = ServerStage::kShareKeys;
  return out;
}

}  // namespace fedmf::secagg
