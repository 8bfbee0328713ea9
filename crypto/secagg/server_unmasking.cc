// Server round 4 (Unmasking): collect the revealed shares, each checked against its dealer's
// commitment (a false one convicts its revealer), then rebuild and check the self-mask
// secret b of every client in U3 (against its commitment) and the masking key s_SK of every
// client in U2 \ U3 (against its advertised key), and remove from the sum the self masks and the
// pairwise masks that did not cancel.
#include <algorithm>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crypto/mersenne61.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::RevealedShare;
using fedmf::v1::secagg::UnmaskingResponse;

namespace {

// OK iff `share` is 40 bytes of five little-endian elements of GF(2^61 - 1).
absl::Status CheckShareBytes(const std::string& share, uint32_t owner) {
  if (share.size() != crypto::kShamirShareSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "share of client %d is %d bytes, need %d", owner, share.size(), crypto::kShamirShareSize));
  }
  for (int e = 0; e < crypto::kShamirChunks; ++e) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t{static_cast<uint8_t>(share[8 * e + b])} << (8 * b);
    if (v >= crypto::kMersenne61) {
      return absl::InvalidArgumentError(
          absl::StrFormat("share of client %d: element %d is not below 2^61 - 1", owner, e));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool ServerSession::MatchesDealtShare(uint32_t owner, uint32_t holder, SharedSecret secret,
                                      const RevealedShare& share) const {
  const absl::Span<const uint32_t> members = Neighborhood(owner);
  const size_t position = static_cast<size_t>(
      std::lower_bound(members.begin(), members.end(), holder) - members.begin());
  const size_t slot = position - (owner < holder ? 1 : 0);  // the owner dealt itself no slot
  const size_t at = (2 * slot + (secret == SharedSecret::kSelfMask ? 1 : 0)) * kCommitmentSize;
  absl::StatusOr<Commitment> got = ShareCommitment(session_id_, owner, holder, secret,
                                                   AsBytes(share.share()), AsBytes(share.salt()));
  const std::string& dealt = Find(owner)->share_commitments;
  return got.ok() && at + kCommitmentSize <= dealt.size() &&
         std::memcmp(got->data(), dealt.data() + at, kCommitmentSize) == 0;
}

absl::Status ServerSession::AcceptUnmasking(Client& c, const UnmaskingResponse& m) {
  // What c must reveal: self-mask shares of N[c] ∩ U3, key shares of N(c) ∩ (U2 \ U3).
  std::vector<uint32_t> want_self, want_key;
  for (uint32_t u : Neighborhood(c.id)) {
    if (Reported(c, u)) continue;  // c holds no usable share of u
    const Client& owner = *Find(u);
    if (owner.masked) {
      want_self.push_back(u);
    } else if (owner.shared) {
      want_key.push_back(u);
    }
  }
  // Well-formed first (else the whole message is refused); then each share against its dealer's
  // commitment: a false one is discarded and convicts c, the other shares still count.
  std::vector<std::pair<const RevealedShare*, SharedSecret>> checked;
  auto check_list = [&](const google::protobuf::RepeatedPtrField<RevealedShare>& got,
                        const std::vector<uint32_t>& want, SharedSecret secret) -> absl::Status {
    const char* kind = secret == SharedSecret::kSelfMask ? "self-mask" : "key";
    if (static_cast<size_t>(got.size()) != want.size()) {
      return Invalid("%d %s shares, need %d", got.size(), kind, want.size());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      const RevealedShare& share = got[static_cast<int>(i)];
      if (share.owner_id() != want[i]) {
        return Invalid("%s share %d is of client %d, expected %d", kind, i, share.owner_id(),
                       want[i]);
      }
      if (absl::Status s = CheckShareBytes(share.share(), want[i]); !s.ok()) return s;
      // Nobody committed to the revealer's own share: it comes without a salt.
      const size_t salt_size = want[i] == c.id ? 0 : kShareSaltSize;
      if (share.salt().size() != salt_size) {
        return Invalid("%s share of client %d with a salt of %d bytes, need %d", kind, want[i],
                       share.salt().size(), salt_size);
      }
      checked.emplace_back(&share, secret);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_list(m.self_mask_shares(), want_self, SharedSecret::kSelfMask);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = check_list(m.key_shares(), want_key, SharedSecret::kMaskingKey); !s.ok()) {
    return s;
  }
  for (const auto& [share, secret] : checked) {
    // A false own share can only be the owner's doing: the rebuilding names it.
    if (share->owner_id() != c.id && !MatchesDealtShare(share->owner_id(), c.id, secret, *share)) {
      misbehaviour_.push_back(
          {c.id,
           absl::StrFormat("its revealed share of client %d's %s is not the one client %d "
                           "committed to dealing it (a false reveal)",
                           share->owner_id(),
                           secret == SharedSecret::kSelfMask ? "self-mask secret" : "masking key",
                           share->owner_id()),
           true});
      continue;
    }
    const absl::Span<const uint32_t> members = Neighborhood(share->owner_id());
    const size_t position = static_cast<size_t>(
        std::lower_bound(members.begin(), members.end(), c.id) - members.begin());
    revealed_[share->owner_id()].push_back(
        {static_cast<uint32_t>(position + 1), crypto::SecretBytes(AsBytes(share->share()))});
  }
  c.unmasked = true;
  return absl::OkStatus();
}

absl::StatusOr<crypto::SecretBytes> ServerSession::RebuildSecret(
    uint32_t owner, const char* what, const std::function<bool(const crypto::SecretBytes&)>& valid,
    std::optional<crypto::ShamirReconstructor>& reconstructor) {
  auto it = revealed_.find(owner);
  const size_t have = it == revealed_.end() ? 0 : it->second.size();
  if (have < static_cast<size_t>(config_.threshold)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "too few shares to unmask client %d: %d, threshold %d", owner, have, config_.threshold));
  }
  const absl::Span<const crypto::ShamirShare> shares = it->second;
  const crypto::ShamirParams params{config_.threshold,
                                    static_cast<int>(Neighborhood(owner).size())};
  // The fast path: the first t shares (the same holders for every owner of the complete graph
  // when nobody revealed falsely, so the reconstructor is reused).
  std::vector<uint32_t> holders;
  for (size_t i = 0; i < static_cast<size_t>(config_.threshold); ++i) {
    holders.push_back(shares[i].index);
  }
  std::sort(holders.begin(), holders.end());
  if (!reconstructor.has_value() ||
      !std::equal(holders.begin(), holders.end(), reconstructor->indices().begin(),
                  reconstructor->indices().end())) {
    absl::StatusOr<crypto::ShamirReconstructor> r =
        crypto::ShamirReconstructor::Create(holders, params);
    if (!r.ok()) return r.status();
    reconstructor = std::move(*r);
  }
  absl::StatusOr<crypto::SecretBytes> secret = reconstructor->Reconstruct(shares);
  if (secret.ok() && valid(*secret)) return secret;
  // Every share but the owner's own matched the owner's commitment, so shares off one polynomial
  // are the owner's doing: decode from all of them (correcting up to (have - t) / 2) to finish
  // the session, and name the owner.
  absl::StatusOr<crypto::ShamirDecoding> decoded = crypto::ShamirDecode(shares, params);
  if (decoded.ok() && valid(decoded->secret)) {
    if (!decoded->off_polynomial.empty()) {
      misbehaviour_.push_back(
          {owner,
           absl::StrFormat("%d of the shares of its %s it committed to are off its polynomial",
                           decoded->off_polynomial.size(), what),
           true});
    }
    return std::move(decoded->secret);
  }
  misbehaviour_.push_back(
      {owner,
       absl::StrFormat("its %d revealed shares do not rebuild a %s matching its advertisement%s",
                       have, what,
                       decoded.ok() ? "" : absl::StrCat(" (", decoded.status().message(), ")")),
       true});
  return absl::DataLossError(
      absl::StrFormat("the shares of client %d do not rebuild its %s", owner, what));
}

absl::Status ServerSession::CloseUnmasking() {
  // Every secret is rebuilt before the first fails the session, so that every culprit is named.
  std::optional<crypto::ShamirReconstructor> reconstructor;
  absl::Status failed;
  auto note = [&failed](const absl::Status& s) {
    if (failed.ok()) failed = s;
  };
  for (const Client& u : clients_) {
    if (!u.masked) continue;
    absl::StatusOr<crypto::SecretBytes> b = RebuildSecret(
        u.id, "self-mask secret",
        [&](const crypto::SecretBytes& candidate) {
          absl::StatusOr<Commitment> c = SelfMaskCommitment(config_digest_, u.id, candidate.span());
          return c.ok() && *c == u.self_mask_commitment;
        },
        reconstructor);
    if (!b.ok()) {
      note(b.status());
      continue;
    }
    absl::StatusOr<crypto::SecretBytes> seed = SelfMaskSeed(b->span(), u.id, session_id_);
    if (!seed.ok()) return seed.status();
    if (absl::Status s = sum_.AddMask(seed->span(), crypto::MaskOp::kSubtract); !s.ok()) return s;
  }
  std::vector<DroppedKey> dropped;
  for (const Client& w : clients_) {
    if (!w.shared || w.masked) continue;
    absl::StatusOr<crypto::SecretBytes> scalar = RebuildSecret(
        w.id, "masking key",
        [&](const crypto::SecretBytes& candidate) {
          absl::StatusOr<crypto::X25519PrivateKey> key =
              crypto::X25519PrivateKey::FromBytes(candidate.span());
          return key.ok() && key->public_key().bytes() == w.s_public;
        },
        reconstructor);
    if (!scalar.ok()) {
      note(scalar.status());
      continue;
    }
    absl::StatusOr<crypto::X25519PrivateKey> key =
        crypto::X25519PrivateKey::FromBytes(scalar->span());
    if (!key.ok()) return key.status();
    dropped.push_back({w.id, std::move(*key)});
  }
  if (!failed.ok()) return failed;
  if (absl::Status s = RemovePairwiseMasks(dropped); !s.ok()) return s;
  revealed_.clear();
  result_ = sum_.Values();
  return absl::OkStatus();
}

absl::Status ServerSession::RemovePairwiseMasks(const std::vector<DroppedKey>& dropped) {
  struct Pair {
    const DroppedKey* dropped;
    const Client* survivor;
  };
  std::vector<Pair> pairs;
  // Each survivor's key, imported once for its agreements with all its dropped neighbors.
  absl::flat_hash_map<uint32_t, crypto::X25519PublicKey> peers;
  for (const DroppedKey& w : dropped) {
    for (uint32_t v : Neighborhood(w.id)) {
      const Client* survivor = Find(v);
      if (!survivor->masked) continue;
      pairs.push_back({&w, survivor});
      if (peers.contains(v)) continue;
      absl::StatusOr<crypto::X25519PublicKey> key =
          crypto::X25519PublicKey::FromBytes(survivor->s_public);
      if (key.ok()) key = key->Imported();
      if (!key.ok()) return key.status();
      peers.emplace(v, std::move(*key));
    }
  }
  // Worker 0 adds into the sum itself, the others into accumulators of their own (each owns its
  // AES-CTR expander); addition mod 2^b commutes, so the result does not depend on the split.
  const size_t workers =
      std::clamp<size_t>(pairs.size() / kPairsPerWorker, 1, std::max(1, unmasking_threads_));
  std::vector<MaskAccumulator> partial;
  for (size_t i = 1; i < workers; ++i) {
    absl::StatusOr<MaskAccumulator> acc = MaskAccumulator::Create(sum_.bits(), sum_.length());
    if (!acc.ok()) return acc.status();
    partial.push_back(std::move(*acc));
  }
  std::vector<absl::Status> status(workers);
  auto work = [&](size_t worker) {
    MaskAccumulator& into = worker == 0 ? sum_ : partial[worker - 1];
    for (size_t i = worker; i < pairs.size(); i += workers) {
      const DroppedKey& w = *pairs[i].dropped;
      const uint32_t v = pairs[i].survivor->id;
      absl::StatusOr<crypto::SecretBytes> seed =
          PairwiseMaskSeed(w.key, w.id, peers.find(v)->second, v, session_id_);
      // v added +PRG(s_vw) if v < w, -PRG(s_vw) if v > w: undo it.
      status[worker] = seed.ok() ? into.AddMask(seed->span(), v < w.id ? crypto::MaskOp::kSubtract
                                                                       : crypto::MaskOp::kAdd)
                                 : seed.status();
      if (!status[worker].ok()) return;
    }
  };
  std::vector<std::thread> threads;
  std::vector<size_t> here = {0};  // workers run on this thread
  for (size_t worker = 1; worker < workers; ++worker) {
    try {
      threads.emplace_back(work, worker);
    } catch (const std::system_error&) {  // no thread to be had (a process limit): not fatal
      here.push_back(worker);
    }
  }
  for (size_t worker : here) work(worker);
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : status) {
    if (!s.ok()) return s;
  }
  for (const MaskAccumulator& acc : partial) {
    if (absl::Status s = sum_.Add(acc); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace fedmf::secagg
