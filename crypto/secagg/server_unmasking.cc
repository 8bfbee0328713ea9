// Server round 4 (Unmasking): collect the revealed shares (the first t per secret), then rebuild
// the self-mask secret b of every client in U3 and the masking key s_SK of every client in
// U2 \ U3, and remove from the sum the self masks and the pairwise masks that did not cancel.
#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>

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

absl::Status ServerSession::AcceptUnmasking(Client& c, const UnmaskingResponse& m) {
  // What c must reveal: self-mask shares of N[c] ∩ U3, key shares of N(c) ∩ (U2 \ U3).
  std::vector<uint32_t> want_self, want_key;
  for (uint32_t u : Neighborhood(c.id)) {
    const Client& owner = *Find(u);
    if (owner.masked) {
      want_self.push_back(u);
    } else if (owner.shared) {
      want_key.push_back(u);
    }
  }
  auto check_list = [&](const google::protobuf::RepeatedPtrField<RevealedShare>& got,
                        const std::vector<uint32_t>& want, const char* kind) -> absl::Status {
    if (static_cast<size_t>(got.size()) != want.size()) {
      return Invalid("%d %s shares, need %d", got.size(), kind, want.size());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[static_cast<int>(i)].owner_id() != want[i]) {
        return Invalid("%s share %d is of client %d, expected %d", kind, i,
                       got[static_cast<int>(i)].owner_id(), want[i]);
      }
      if (absl::Status s = CheckShareBytes(got[static_cast<int>(i)].share(), want[i]); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_list(m.self_mask_shares(), want_self, "self-mask"); !s.ok()) return s;
  if (absl::Status s = check_list(m.key_shares(), want_key, "key"); !s.ok()) return s;

  auto keep = [&](const RevealedShare& r) {
    std::vector<crypto::ShamirShare>& shares = revealed_[r.owner_id()];
    if (shares.size() >= static_cast<size_t>(config_.threshold)) return;
    const absl::Span<const uint32_t> members = Neighborhood(r.owner_id());
    const size_t position = static_cast<size_t>(
        std::lower_bound(members.begin(), members.end(), c.id) - members.begin());
    shares.push_back(
        {static_cast<uint32_t>(position + 1), crypto::SecretBytes(AsBytes(r.share()))});
  };
  for (const RevealedShare& r : m.self_mask_shares()) keep(r);
  for (const RevealedShare& r : m.key_shares()) keep(r);
  c.unmasked = true;
  return absl::OkStatus();
}

absl::Status ServerSession::CloseUnmasking() {
  // Reconstructors are reused while consecutive secrets have the same holders (always, for the
  // complete graph).
  std::optional<crypto::ShamirReconstructor> reconstructor;
  auto rebuild = [&](uint32_t owner) -> absl::StatusOr<crypto::SecretBytes> {
    auto it = revealed_.find(owner);
    const size_t have = it == revealed_.end() ? 0 : it->second.size();
    if (have < static_cast<size_t>(config_.threshold)) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "too few shares to unmask client %d: %d, threshold %d", owner, have, config_.threshold));
    }
    std::vector<uint32_t> holders;
    for (const crypto::ShamirShare& s : it->second) holders.push_back(s.index);
    std::sort(holders.begin(), holders.end());
    const crypto::ShamirParams params{config_.threshold,
                                      static_cast<int>(Neighborhood(owner).size())};
    if (!reconstructor.has_value() ||
        !std::equal(holders.begin(), holders.end(), reconstructor->indices().begin(),
                    reconstructor->indices().end())) {
      absl::StatusOr<crypto::ShamirReconstructor> r =
          crypto::ShamirReconstructor::Create(holders, params);
      if (!r.ok()) return r.status();
      reconstructor = std::move(*r);
    }
    absl::StatusOr<crypto::SecretBytes> secret = reconstructor->Reconstruct(it->second);
    if (!secret.ok()) {
      return absl::DataLossError(absl::StrFormat("shares of client %d do not reconstruct: %s",
                                                 owner, secret.status().message()));
    }
    return secret;
  };

  for (const Client& u : clients_) {
    if (!u.masked) continue;
    absl::StatusOr<crypto::SecretBytes> b = rebuild(u.id);
    if (!b.ok()) return b.status();
    absl::StatusOr<crypto::SecretBytes> seed = SelfMaskSeed(b->span(), u.id, session_id_);
    if (!seed.ok()) return seed.status();
    if (absl::Status s = sum_.AddMask(seed->span(), crypto::MaskOp::kSubtract); !s.ok()) return s;
  }
  std::vector<DroppedKey> dropped;
  for (const Client& w : clients_) {
    if (!w.shared || w.masked) continue;
    absl::StatusOr<crypto::SecretBytes> scalar = rebuild(w.id);
    if (!scalar.ok()) return scalar.status();
    absl::StatusOr<crypto::X25519PrivateKey> key =
        crypto::X25519PrivateKey::FromBytes(scalar->span());
    if (!key.ok()) return key.status();
    if (key->public_key().bytes() != w.s_public) {
      return absl::DataLossError(absl::StrFormat(
          "the reconstructed key of client %d does not match its advertised key", w.id));
    }
    dropped.push_back({w.id, std::move(*key)});
  }
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
  for (const DroppedKey& w : dropped) {
    for (uint32_t v : Neighborhood(w.id)) {
      const Client* survivor = Find(v);
      if (survivor->masked) pairs.push_back({&w, survivor});
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
      absl::StatusOr<crypto::X25519PublicKey> peer =
          crypto::X25519PublicKey::FromBytes(pairs[i].survivor->s_public);
      absl::StatusOr<crypto::SecretBytes> seed =
          peer.ok() ? PairwiseMaskSeed(w.key, w.id, *peer, v, session_id_) : peer.status();
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
