// Server round 1 (ShareKeys): collect each client's ciphertexts and share commitments (one of each
// per neighbor), then fix U2 and route to every client of U2 the ciphertexts addressed to it by
// its neighbors in U2, with their commitments (kept until Unmasking, to check the reveals).
#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/server_session.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ServerToClient;
using fedmf::v1::secagg::ShareKeysResponse;

absl::Status ServerSession::AcceptShareKeys(Client& c, const ShareKeysResponse& m) {
  const absl::Span<const uint32_t> members = Neighborhood(c.id);
  if (static_cast<size_t>(m.shares_size()) != members.size() - 1) {
    return Invalid("wrong share count: %d ciphertexts, need one for each of %d neighbors",
                   m.shares_size(), members.size() - 1);
  }
  std::string store, commitments;
  store.reserve(kShareCiphertextSize * (members.size() - 1));
  commitments.reserve(2 * kCommitmentSize * (members.size() - 1));
  int i = 0;
  for (uint32_t receiver : members) {
    if (receiver == c.id) continue;
    const fedmf::v1::secagg::EncryptedShares& entry = m.shares(i);
    if (entry.peer_id() != receiver) {
      return Invalid("ciphertext %d is addressed to %d, expected neighbor %d (ascending order)", i,
                     entry.peer_id(), receiver);
    }
    if (entry.ciphertext().size() != kShareCiphertextSize) {
      return Invalid("ciphertext for %d is %d bytes, need %d", receiver, entry.ciphertext().size(),
                     kShareCiphertextSize);
    }
    if (entry.key_share_commitment().size() != kCommitmentSize ||
        entry.self_mask_share_commitment().size() != kCommitmentSize) {
      return Invalid("share commitments for %d are %d and %d bytes, need %d", receiver,
                     entry.key_share_commitment().size(),
                     entry.self_mask_share_commitment().size(), kCommitmentSize);
    }
    store.append(entry.ciphertext());
    commitments.append(entry.key_share_commitment());
    commitments.append(entry.self_mask_share_commitment());
    ++i;
  }
  c.ciphertexts = std::move(store);
  c.share_commitments = std::move(commitments);
  c.shared = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::CloseShareKeys() {
  for (Client& c : clients_) c.shared = c.shared && !c.dropped;
  if (absl::Status s = CheckReconstructable(&Client::shared); !s.ok()) return s;

  // Route by sender, ascending, so every request lists its senders in ascending order.
  absl::flat_hash_map<uint32_t, ServerToClient> requests;
  for (const Client& c : clients_) {
    if (c.shared) requests[c.id].mutable_masked_input();
  }
  for (Client& sender : clients_) {
    if (!sender.shared) continue;
    size_t slot = 0;  // position of the receiver among N(sender) \ {sender}
    for (uint32_t receiver : Neighborhood(sender.id)) {
      if (receiver == sender.id) continue;
      auto it = requests.find(receiver);
      if (it != requests.end()) {
        fedmf::v1::secagg::EncryptedShares* entry = it->second.mutable_masked_input()->add_shares();
        entry->set_peer_id(sender.id);
        entry->set_ciphertext(
            sender.ciphertexts.substr(slot * kShareCiphertextSize, kShareCiphertextSize));
        entry->set_key_share_commitment(
            sender.share_commitments.substr(2 * slot * kCommitmentSize, kCommitmentSize));
        entry->set_self_mask_share_commitment(
            sender.share_commitments.substr((2 * slot + 1) * kCommitmentSize, kCommitmentSize));
      }
      ++slot;
    }
    sender.ciphertexts.clear();
    sender.ciphertexts.shrink_to_fit();
  }
  std::vector<ServerMessage> out;
  out.reserve(requests.size());
  for (const Client& c : clients_) {
    if (c.shared) out.push_back({c.id, std::move(requests[c.id])});
  }
  stage_ = ServerStage::kMaskedInput;
  return out;
}

}  // namespace fedmf::secagg
