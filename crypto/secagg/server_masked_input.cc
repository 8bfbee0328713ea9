// Server round 2 (MaskedInputCollection): add each masked input, or a front's partial sum of
// several, into the running sum on arrival (with the senders' reports of neighbors whose shares
// they could not use), then fix U3 (the clients whose input counts) and start the consistency
// check or the unmasking.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/masked_input_check.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::MaskedInput;
using fedmf::v1::secagg::ServerToClient;

bool ServerSession::SharesRelayed(uint32_t owner, uint32_t to) const {
  const absl::Span<const uint32_t> members = Neighborhood(to);
  return owner != to && std::binary_search(members.begin(), members.end(), owner) &&
         Find(owner)->shared;
}

absl::Status ServerSession::AcceptMaskedInput(Client& c, const MaskedInput& m) {
  if (absl::Status s = AddMaskedInput(
          m, [&](uint32_t owner) { return SharesRelayed(owner, c.id); }, sum_);
      !s.ok()) {
    return s;
  }
  c.unusable_from.assign(m.unusable_shares_from().begin(), m.unusable_shares_from().end());
  c.masked = true;
  return absl::OkStatus();
}

ServerSession::PartialSumAnswer ServerSession::AcceptMaskedInputSum(const PartialSum& partial) {
  PartialSumAnswer answer;
  if (stage_ != ServerStage::kMaskedInput) {
    answer.refused = absl::StrFormat("a partial sum in stage %s", ServerStageName(stage_));
    return answer;
  }
  // Every check before anything changes: a refused partial adds nothing.
  absl::Status checked;
  if (partial.members.empty()) checked = Invalid("a partial sum without members");
  for (size_t i = 0; i < partial.members.size() && checked.ok(); ++i) {
    const PartialSum::Member& member = partial.members[i];
    const Client* c = Find(member.id);
    if (i > 0 && member.id <= partial.members[i - 1].id) {
      checked = Invalid("partial sum members not strictly ascending at %d", i);
    } else if (c == nullptr) {
      checked = Invalid("client %d is not in the cohort", member.id);
    } else if (c->dropped) {
      checked = Invalid("client %d was dropped (%s)", member.id, c->drop_reason);
    } else if (!c->awaiting) {  // every live client of U2 awaits until its input arrives
      checked = Invalid("client %d already sent its masked input", member.id);
    } else if (absl::Status s = CheckUnusableSharesFrom(
                   member.unusable_shares_from,
                   [&](uint32_t owner) { return SharesRelayed(owner, member.id); });
               !s.ok()) {
      checked = Invalid("client %d: %s", member.id, s.message());
    }
  }
  if (checked.ok()) {
    if (absl::Status s = sum_.AddPacked(AsBytes(partial.packed)); !s.ok()) {
      checked = Invalid("masked input sum: %s", s.message());
    }
  }
  if (!checked.ok()) {
    answer.refused = absl::StrFormat("partial sum of %d client(s) refused: %s",
                                     partial.members.size(), checked.message());
    // Its members still awaiting their input gave it to this partial: they are out (U2 \ U3).
    // Their Abort gives no reason, which may name the partial's other members.
    for (const PartialSum::Member& member : partial.members) {
      Client* c = Find(member.id);
      if (c == nullptr || !c->awaiting) continue;
      Drop(*c, answer.refused);
      answer.aborts.push_back({c->id, AbortMessage(kPartialSumRefused)});
    }
    return answer;
  }
  for (const PartialSum::Member& member : partial.members) {
    Client& c = *Find(member.id);
    c.unusable_from = member.unusable_shares_from;
    c.masked = true;
    c.awaiting = false;
  }
  return answer;
}

absl::StatusOr<std::vector<ServerMessage>> ServerSession::CloseMaskedInput() {
  // A client whose masked input arrived stays in U3 even if it dropped since: its input counts.
  survivors_.clear();
  for (const Client& c : clients_) {
    if (c.masked) survivors_.push_back(c.id);
  }
  if (survivors_.size() < static_cast<size_t>(config_.threshold)) {
    return absl::FailedPreconditionError(absl::StrFormat("too few masked inputs: %d, threshold %d",
                                                         survivors_.size(), config_.threshold));
  }
  if (absl::Status s = CheckReconstructable(&Client::masked); !s.ok()) return s;
  // Reports of unusable shares that CheckReconstructable let pass: tolerated, one entry per owner.
  std::map<uint32_t, std::vector<uint32_t>> reporters;
  for (const Client& reporter : clients_) {
    if (!reporter.masked) continue;
    for (uint32_t owner : reporter.unusable_from) reporters[owner].push_back(reporter.id);
  }
  for (const auto& [owner, by] : reporters) {
    misbehaviour_.push_back(
        {owner,
         absl::StrFormat("its share ciphertexts did not decrypt or decode at %d holder(s): %s",
                         by.size(), absl::StrJoin(by, ",")),
         false});
  }
  if (static_cast<int64_t>(survivors_.size()) < min_inputs_) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%d masked inputs, fewer than n_min %d", survivors_.size(), min_inputs_));
  }
  if (config_.consistency_check) {
    ServerToClient request;
    for (uint32_t id : survivors_) request.mutable_consistency_check()->add_survivor_ids(id);
    std::vector<ServerMessage> out;
    for (const Client& c : clients_) {
      if (c.masked && !c.dropped) out.push_back({c.id, request});
    }
    stage_ = ServerStage::kConsistencyCheck;
    return out;
  }
  stage_ = ServerStage::kUnmasking;
  return UnmaskingRequests(&Client::masked);
}

std::vector<ServerMessage> ServerSession::UnmaskingRequests(bool Client::*flag) {
  ServerToClient common;  // the signatures, the same for everyone
  for (const Client& c : clients_) {
    if (c.signed_survivors) {
      fedmf::v1::secagg::SurvivorSignature* s = common.mutable_unmasking()->add_signatures();
      s->set_client_id(c.id);
      s->set_signature(c.survivor_signature);
    }
  }
  std::vector<ServerMessage> out;
  for (const Client& v : clients_) {
    if (!(v.*flag) || v.dropped) continue;
    ServerToClient request = common;
    fedmf::v1::secagg::UnmaskingRequest* r = request.mutable_unmasking();
    for (uint32_t u : Neighborhood(v.id)) {
      const Client& owner = *Find(u);
      if (owner.shared && !owner.masked) r->add_dropped_ids(u);
    }
    out.push_back({v.id, std::move(request)});
  }
  return out;
}

}  // namespace fedmf::secagg
