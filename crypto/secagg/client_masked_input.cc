// Client round 2 (MaskedInputCollection): decrypt the shares the neighbors sent and check them
// against the commitments the server forwarded, then send
// y = x + PRG(self-mask seed) + sum over neighbors v that shared of +PRG(s_uv) (u < v) or
// -PRG(s_uv) (u > v), mod 2^b, bit-packed, with the list of neighbors whose shares were unusable.
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::MaskedInputRequest;

bool ClientSession::MatchesCommitments(const SharePayload& shares,
                                       const fedmf::v1::secagg::EncryptedShares& entry) const {
  auto matches = [&](SharedSecret secret, const crypto::SecretBytes& share,
                     const crypto::SecretBytes& salt, const std::string& expected) {
    absl::StatusOr<Commitment> c =
        ShareCommitment(session_id_, entry.peer_id(), id_, secret, share.span(), salt.span());
    return c.ok() && expected.size() == c->size() &&
           std::memcmp(c->data(), expected.data(), c->size()) == 0;
  };
  return matches(SharedSecret::kMaskingKey, shares.key_share, shares.key_share_salt,
                 entry.key_share_commitment()) &&
         matches(SharedSecret::kSelfMask, shares.self_mask_share, shares.self_mask_share_salt,
                 entry.self_mask_share_commitment());
}

absl::StatusOr<ClientToServer> ClientSession::HandleMaskedInput(const MaskedInputRequest& request) {
  // The client's own shares count towards the threshold.
  if (static_cast<size_t>(request.shares_size()) + 1 < static_cast<size_t>(config_.threshold)) {
    return Invalid("too few clients left: shares from %d neighbors, need at least %d",
                   request.shares_size(), config_.threshold - 1);
  }
  for (int i = 0; i < request.shares_size(); ++i) {
    const fedmf::v1::secagg::EncryptedShares& entry = request.shares(i);
    const uint32_t sender = entry.peer_id();
    if (i > 0 && sender == request.shares(i - 1).peer_id()) {
      return Invalid("shares of client %d listed twice", sender);
    }
    if (i > 0 && sender < request.shares(i - 1).peer_id()) {
      return Invalid("share senders not ascending at position %d (%d after %d)", i, sender,
                     request.shares(i - 1).peer_id());
    }
    if (sender == id_) return Invalid("shares from itself in the request");
    Neighbor* n = FindNeighbor(sender);
    if (n == nullptr) return Invalid("shares from client %d, which is not a neighbor", sender);
    // The sender shared (the server accepted its ciphertexts), so its pairwise mask is added
    // whatever the ciphertext holds. A ciphertext that does not decrypt or decode costs only
    // the sender's shares here: they are reported, never a reason to abort (a single member
    // could otherwise stop every session it is in).
    n->shared = true;
    absl::StatusOr<crypto::SecretBytes> payload = n->channel->Decrypt(
        AsBytes(entry.ciphertext()), ShareAssociatedData(session_id_, sender, id_));
    absl::StatusOr<SharePayload> shares =
        payload.ok() ? DecodeSharePayload(*payload, sender, id_) : payload.status();
    // Shares that do not match the commitments the server holds would make this client's honest
    // reveal look false: such shares are unusable too.
    if (!shares.ok() || !MatchesCommitments(*shares, entry)) {
      n->unusable = true;
      continue;
    }
    n->key_share = std::move(shares->key_share);
    n->self_mask_share = std::move(shares->self_mask_share);
    n->key_share_salt = std::move(shares->key_share_salt);
    n->self_mask_share_salt = std::move(shares->self_mask_share_salt);
  }

  absl::StatusOr<MaskAccumulator> acc = MaskAccumulator::Create(config_.bits, config_.length);
  if (!acc.ok()) return acc.status();
  if (absl::Status s = acc->AddValues(input_); !s.ok()) return s;
  absl::StatusOr<crypto::SecretBytes> self_seed =
      SelfMaskSeed(self_mask_secret_.span(), id_, session_id_);
  if (!self_seed.ok()) return self_seed.status();
  if (absl::Status s = acc->AddMask(self_seed->span(), crypto::MaskOp::kAdd); !s.ok()) return s;
  for (const Neighbor& n : neighbors_) {
    if (n.id == id_ || !n.shared) continue;
    absl::StatusOr<crypto::SecretBytes> seed =
        PairwiseMaskSeed(*s_key_, id_, *n.s_public, n.id, session_id_);
    if (!seed.ok()) return seed.status();
    const crypto::MaskOp op = id_ < n.id ? crypto::MaskOp::kAdd : crypto::MaskOp::kSubtract;
    if (absl::Status s = acc->AddMask(seed->span(), op); !s.ok()) return s;
  }
  absl::StatusOr<std::string> packed = acc->Pack();
  if (!packed.ok()) return packed.status();
  std::fill(input_.begin(), input_.end(), 0);

  ClientToServer out;
  out.mutable_masked_input()->set_packed(std::move(*packed));
  for (const Neighbor& n : neighbors_) {
    if (n.unusable) out.mutable_masked_input()->add_unusable_shares_from(n.id);
  }
  stage_ = config_.consistency_check ? ClientStage::kAwaitingConsistencyCheck
                                     : ClientStage::kAwaitingUnmasking;
  return out;
}

}  // namespace fedmf::secagg
