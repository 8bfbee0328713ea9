#include "tests/unit/crypto/transcript_attacker.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg::test_util {

using fedmf::v1::secagg::RevealedShare;
using fedmf::v1::secagg::ServerToClient;

namespace {

// The senders whose shares the MaskedInputRequest to `id` relayed (ascending); empty if none.
std::vector<uint32_t> RelayedTo(const PartyView::Sent& sent, uint32_t id) {
  std::vector<uint32_t> out;
  for (const auto& [to, message] : sent) {
    if (to != id || !message.has_masked_input()) continue;
    for (const auto& entry : message.masked_input().shares()) out.push_back(entry.peer_id());
  }
  return out;
}

template <typename Entries>
Entries Union(const Entries& a, const Entries& b) {
  Entries out = a;
  std::set<std::string> seen;
  auto key = [](const auto& entry) {
    return absl::StrCat(entry.first, ":", entry.second.SerializeAsString());
  };
  for (const auto& entry : a) seen.insert(key(entry));
  for (const auto& entry : b) {
    if (seen.insert(key(entry)).second) out.push_back(entry);
  }
  return out;
}

// Every owner's revealed shares of one kind, with the holder's Shamir index in N[owner].
using Shares = std::map<uint32_t, std::vector<crypto::ShamirShare>>;
void AddShares(const NeighborGraph& graph, uint32_t holder,
               const google::protobuf::RepeatedPtrField<RevealedShare>& revealed, Shares& into) {
  for (const RevealedShare& share : revealed) {
    const std::vector<uint32_t> holders = graph.ClosedNeighborhood(share.owner_id());
    const auto at = std::lower_bound(holders.begin(), holders.end(), holder);
    into[share.owner_id()].push_back({static_cast<uint32_t>(at - holders.begin() + 1),
                                      crypto::SecretBytes(AsBytes(share.share()))});
  }
}

}  // namespace

PartyView FrontView(const Transcript& transcript, const std::set<uint32_t>& members) {
  PartyView view;
  for (const auto& entry : transcript.received) {
    if (members.contains(entry.first)) view.received.push_back(entry);
  }
  for (const auto& entry : transcript.sent) {
    if (members.contains(entry.first)) view.sent.push_back(entry);
  }
  return view;
}

absl::StatusOr<PartyView> CombinerView(const SessionConfig& config, const Transcript& transcript,
                                       const std::vector<std::set<uint32_t>>& groups) {
  PartyView view;
  view.sent = transcript.sent;
  std::vector<MaskedInputSummer> summers;
  for (size_t g = 0; g < groups.size(); ++g) {
    absl::StatusOr<MaskedInputSummer> summer =
        MaskedInputSummer::Create(config.bits, config.length);
    if (!summer.ok()) return summer.status();
    summers.push_back(std::move(*summer));
  }
  for (const auto& entry : transcript.received) {
    const auto& [id, message] = entry;
    if (!message.has_masked_input()) {
      view.received.push_back(entry);
      continue;
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].contains(id)) continue;
      const std::vector<uint32_t> relayed = RelayedTo(transcript.sent, id);
      if (absl::Status s = summers[g].Add(id, message.masked_input(), relayed); !s.ok()) return s;
    }
  }
  for (const MaskedInputSummer& summer : summers) {
    if (absl::StatusOr<PartialSum> partial = summer.Partial(); partial.ok()) {
      view.partials.push_back(std::move(*partial));
    }
  }
  return view;
}

PartyView Coalition(const PartyView& a, const PartyView& b) {
  PartyView view;
  view.received = Union(a.received, b.received);
  view.sent = Union(a.sent, b.sent);
  view.partials = a.partials;
  view.partials.insert(view.partials.end(), b.partials.begin(), b.partials.end());
  return view;
}

std::vector<uint32_t> AdvertisedIds(const Transcript& transcript) {
  std::set<uint32_t> ids;
  for (const auto& [id, message] : transcript.received) {
    if (message.has_advertise_keys()) ids.insert(id);
  }
  return {ids.begin(), ids.end()};
}

absl::StatusOr<TranscriptAttacker> TranscriptAttacker::Create(const SessionConfig& config,
                                                              std::vector<uint32_t> advertised,
                                                              const PartyView& view) {
  const ServerToClient* share_keys = nullptr;
  for (const auto& [id, message] : view.sent) {
    if (message.has_share_keys()) share_keys = &message;
  }
  if (share_keys == nullptr) return absl::InvalidArgumentError("no ShareKeysRequest in the view");
  SessionId sid{};
  const std::string& sid_bytes = share_keys->share_keys().session_id();
  if (sid_bytes.size() != sid.size()) return absl::InvalidArgumentError("session id size");
  std::copy(sid_bytes.begin(), sid_bytes.end(), sid.begin());
  absl::StatusOr<NeighborGraph> graph = absl::InvalidArgumentError("no graph");
  if (config.graph == GraphKind::kComplete) {
    graph = NeighborGraph::Complete(std::move(advertised));
  } else {
    absl::StatusOr<crypto::SecretBytes> seed = HararySeed(sid);
    if (!seed.ok()) return seed.status();
    graph = NeighborGraph::Harary(std::move(advertised), config.degree, seed->span());
  }
  if (!graph.ok()) return graph.status();
  TranscriptAttacker attacker(config, std::move(*graph));
  attacker.sid_ = sid;
  attacker.partials_ = view.partials;

  auto add_key = [&attacker](uint32_t id, const std::string& bytes) -> absl::Status {
    if (attacker.s_public_.contains(id)) return absl::OkStatus();
    absl::StatusOr<crypto::X25519PublicKey> key =
        crypto::X25519PublicKey::FromBytes(AsBytes(bytes));
    if (!key.ok()) return key.status();
    attacker.s_public_.emplace(id, *key);
    return absl::OkStatus();
  };
  for (const auto& [to, message] : view.sent) {
    if (message.has_masked_input()) {
      for (const auto& entry : message.masked_input().shares()) {
        attacker.relayed_[to].push_back(entry.peer_id());
      }
    }
    if (!message.has_share_keys()) continue;
    for (const auto& client : message.share_keys().clients()) {
      if (absl::Status s = add_key(client.client_id(), client.keys().s_public_key()); !s.ok()) {
        return s;
      }
    }
  }
  Shares self_mask_shares, key_shares;
  for (const auto& [from, message] : view.received) {
    if (message.has_advertise_keys()) {
      if (absl::Status s = add_key(from, message.advertise_keys().s_public_key()); !s.ok()) {
        return s;
      }
    }
    if (message.has_masked_input()) attacker.masked_inputs_[from] = message.masked_input().packed();
    if (!message.has_unmasking()) continue;
    AddShares(attacker.graph_, from, message.unmasking().self_mask_shares(), self_mask_shares);
    AddShares(attacker.graph_, from, message.unmasking().key_shares(), key_shares);
  }

  auto rebuild = [&](uint32_t owner, const std::vector<crypto::ShamirShare>& shares)
      -> absl::StatusOr<std::optional<crypto::SecretBytes>> {
    if (shares.size() < static_cast<size_t>(config.threshold)) return std::nullopt;
    const crypto::ShamirParams params{
        config.threshold, static_cast<int>(attacker.graph_.ClosedNeighborhood(owner).size())};
    return crypto::ShamirReconstruct(shares, params);
  };
  for (const auto& [owner, shares] : self_mask_shares) {
    absl::StatusOr<std::optional<crypto::SecretBytes>> b = rebuild(owner, shares);
    if (!b.ok()) return b.status();
    if (b->has_value()) attacker.self_mask_secrets_.emplace(owner, std::move(**b));
  }
  for (const auto& [owner, shares] : key_shares) {
    absl::StatusOr<std::optional<crypto::SecretBytes>> scalar = rebuild(owner, shares);
    if (!scalar.ok()) return scalar.status();
    if (!scalar->has_value()) continue;
    absl::StatusOr<crypto::X25519PrivateKey> key =
        crypto::X25519PrivateKey::FromBytes((*scalar)->span());
    if (!key.ok()) return key.status();
    attacker.masking_keys_.emplace(owner, std::move(*key));
  }
  return attacker;
}

absl::StatusOr<GroupSumEstimate> TranscriptAttacker::GroupSum(
    const std::set<uint32_t>& group) const {
  absl::StatusOr<MaskAccumulator> sum = MaskAccumulator::Create(config_.bits, config_.length);
  if (!sum.ok()) return sum.status();
  std::set<uint32_t> members;
  for (const PartialSum& partial : partials_) {
    const bool inside = std::all_of(partial.members.begin(), partial.members.end(),
                                    [&](const PartialSum::Member& m) {
                                      return group.contains(m.id) && !members.contains(m.id);
                                    });
    if (!inside) continue;
    if (absl::Status s = sum->AddPacked(AsBytes(partial.packed)); !s.ok()) return s;
    for (const PartialSum::Member& m : partial.members) members.insert(m.id);
  }
  for (const auto& [id, packed] : masked_inputs_) {
    if (!group.contains(id) || members.contains(id)) continue;
    if (absl::Status s = sum->AddPacked(AsBytes(packed)); !s.ok()) return s;
    members.insert(id);
  }

  GroupSumEstimate estimate;
  for (uint32_t u : members) {
    if (auto b = self_mask_secrets_.find(u); b != self_mask_secrets_.end()) {
      absl::StatusOr<crypto::SecretBytes> seed = SelfMaskSeed(b->second.span(), u, sid_);
      if (!seed.ok()) return seed.status();
      if (absl::Status s = sum->AddMask(seed->span(), crypto::MaskOp::kSubtract); !s.ok()) {
        return s;
      }
    } else {
      ++estimate.self_masks_left;
    }
    auto relayed = relayed_.find(u);
    if (relayed == relayed_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("no MaskedInputRequest to client ", u));
    }
    for (uint32_t v : relayed->second) {
      if (members.contains(v)) continue;  // inside the sum the pair's masks cancel
      // Either end's key gives the pair's seed.
      auto own = masking_keys_.find(u);
      auto peer_key = s_public_.find(v);
      if (own == masking_keys_.end() || peer_key == s_public_.end()) {
        own = masking_keys_.find(v);
        peer_key = s_public_.find(u);
      }
      if (own == masking_keys_.end() || peer_key == s_public_.end()) {
        ++estimate.pairwise_masks_left;
        continue;
      }
      absl::StatusOr<crypto::SecretBytes> seed =
          PairwiseMaskSeed(own->second, own->first, peer_key->second, peer_key->first, sid_);
      if (!seed.ok()) return seed.status();
      // u added +PRG(s_uv) if u < v, -PRG(s_uv) if u > v: undo it.
      const crypto::MaskOp op = u < v ? crypto::MaskOp::kSubtract : crypto::MaskOp::kAdd;
      if (absl::Status s = sum->AddMask(seed->span(), op); !s.ok()) return s;
    }
  }
  estimate.sum = sum->Values();
  estimate.members.assign(members.begin(), members.end());
  return estimate;
}

}  // namespace fedmf::secagg::test_util
