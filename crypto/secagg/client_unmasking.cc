// Client rounds 3 (ConsistencyCheck, optional) and 4 (Unmasking): sign the survivor list; then
// reveal the self-mask share of every surviving neighbor (and of itself) and the key share of
// every neighbor that shared keys but dropped before sending its masked input.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ConsistencyCheckRequest;
using fedmf::v1::secagg::UnmaskingRequest;

absl::StatusOr<ClientToServer> ClientSession::HandleConsistencyCheck(
    const ConsistencyCheckRequest& request) {
  bool found_self = false;
  for (int i = 0; i < request.survivor_ids_size(); ++i) {
    const uint32_t id = request.survivor_ids(i);
    if (i > 0 && id == request.survivor_ids(i - 1)) return Invalid("survivor %d listed twice", id);
    if (i > 0 && id < request.survivor_ids(i - 1)) {
      return Invalid("survivor ids not ascending at position %d", i);
    }
    const Neighbor* n = FindNeighbor(id);
    if (n == nullptr || !n->shared) {
      return Invalid("survivor %d is not a neighbor that shared keys", id);
    }
    found_self |= id == id_;
  }
  if (!found_self) return Invalid("own id missing from the survivor list");
  if (request.survivor_ids_size() < config_.threshold) {
    return Invalid("too few survivors: %d, threshold %d", request.survivor_ids_size(),
                   config_.threshold);
  }
  signed_survivors_.assign(request.survivor_ids().begin(), request.survivor_ids().end());
  absl::StatusOr<crypto::Ed25519Signature> signature =
      signing_key_->Sign(SurvivorListMessage(session_id_, signed_survivors_));
  if (!signature.ok()) return signature.status();
  ClientToServer out;
  out.mutable_consistency_check()->set_signature(signature->data(), signature->size());
  stage_ = ClientStage::kAwaitingUnmasking;
  return out;
}

absl::StatusOr<ClientToServer> ClientSession::HandleUnmasking(const UnmaskingRequest& request) {
  const absl::flat_hash_set<uint32_t> signed_set(signed_survivors_.begin(),
                                                 signed_survivors_.end());
  absl::flat_hash_set<uint32_t> dropped;
  for (int i = 0; i < request.dropped_ids_size(); ++i) {
    const uint32_t id = request.dropped_ids(i);
    if (id == id_) return Invalid("own id listed as dropped");
    const Neighbor* n = FindNeighbor(id);
    if (n == nullptr || !n->shared)
      return Invalid("dropped client %d is not a neighbor that shared keys", id);
    if (!dropped.insert(id).second) return Invalid("dropped client %d listed twice", id);
    if (signed_set.contains(id)) return Invalid("survivor %d listed as dropped", id);
    if (i > 0 && id < request.dropped_ids(i - 1))
      return Invalid("dropped ids not ascending at %d", i);
  }
  std::vector<uint32_t> survivors;
  for (const Neighbor& n : neighbors_) {
    if (n.shared && !dropped.contains(n.id)) survivors.push_back(n.id);
  }
  if (survivors.size() < static_cast<size_t>(config_.threshold)) {
    return Invalid("too few survivors: %d, threshold %d", survivors.size(), config_.threshold);
  }
  if (config_.consistency_check) {
    if (survivors != signed_survivors_) {
      return Invalid("survivors (%d clients) differ from the signed survivor list (%d clients)",
                     survivors.size(), signed_survivors_.size());
    }
    const std::vector<uint8_t> message = SurvivorListMessage(session_id_, signed_survivors_);
    for (int i = 0; i < request.signatures_size(); ++i) {
      const uint32_t signer = request.signatures(i).client_id();
      if (i > 0 && signer <= request.signatures(i - 1).client_id()) {
        return Invalid("signers not strictly ascending at position %d (client %d)", i, signer);
      }
      if (!signed_set.contains(signer)) return Invalid("signature from %d, not a survivor", signer);
      const std::optional<crypto::Ed25519PublicKey> key = directory_->Find(signer);
      if (!key.has_value()) return Invalid("signer %d is not in the directory", signer);
      if (absl::Status s = key->Verify(message, AsBytes(request.signatures(i).signature()));
          !s.ok()) {
        return Invalid("survivor list signature of client %d does not verify", signer);
      }
    }
    if (request.signatures_size() < config_.threshold) {
      return Invalid("survivor list signed by %d clients, threshold %d", request.signatures_size(),
                     config_.threshold);
    }
  } else if (request.signatures_size() != 0) {
    return Invalid("survivor signatures sent without a consistency check");
  }

  ClientToServer out;
  fedmf::v1::secagg::UnmaskingResponse* response = out.mutable_unmasking();
  for (const Neighbor& n : neighbors_) {
    if (!n.shared || n.unusable) continue;  // no share of an unusable neighbor to reveal
    const bool is_dropped = dropped.contains(n.id);
    if (absl::Status s =
            RecordReveal(n.id, is_dropped ? Revealed::kKeyShare : Revealed::kSelfMaskShare);
        !s.ok()) {
      return s;
    }
    fedmf::v1::secagg::RevealedShare* entry =
        is_dropped ? response->add_key_shares() : response->add_self_mask_shares();
    entry->set_owner_id(n.id);
    const crypto::SecretBytes& share = is_dropped ? n.key_share : n.self_mask_share;
    entry->set_share(share.data(), share.size());
    const crypto::SecretBytes& salt = is_dropped ? n.key_share_salt : n.self_mask_share_salt;
    entry->set_salt(salt.data(), salt.size());  // empty for its own share
  }
  stage_ = ClientStage::kCompleted;
  WipeSecrets();
  return out;
}

}  // namespace fedmf::secagg
