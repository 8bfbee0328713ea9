#include "server/placement.h"

#include <algorithm>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::server {
namespace {

// Who max_streams_per_client counts a stream against, as error messages name them: its TLS
// identity and its token credential (an identity credential is the identity itself).
std::vector<std::string> StreamOwners(const Registration& r) {
  std::vector<std::string> owners;
  if (!r.identity.empty()) owners.push_back(absl::StrCat("identity '", r.identity, "'"));
  if (!r.credential.empty() && r.credential != IdentityCredential(r.identity)) {
    owners.push_back(absl::StrCat("credential '", r.credential, "'"));
  }
  return owners;
}

}  // namespace

absl::StatusOr<Placement::Takeover> Placement::Bind(Registration r,
                                                    const std::shared_ptr<Connection>& connection) {
  // Live streams hosting some of its users: replaced if they hold the same credential (the
  // holder reconnected before its old stream was seen to end), else the registration is refused
  // (and used up, as every redeemed one), so that a claimant cannot retry it until the holder's
  // stream drops.
  std::vector<const Connection*> replaced;
  for (uint32_t id : r.participant_ids) {
    auto owner = owner_.find(id);
    if (owner == owner_.end()) continue;
    const Stream& holder = streams_.at(owner->second);
    if (r.credential.empty() || holder.registration.credential != r.credential) {
      return absl::AlreadyExistsError(absl::StrCat(
          "participant ", id, " is already hosted by another live stream; register again"));
    }
    if (std::find(replaced.begin(), replaced.end(), owner->second) == replaced.end()) {
      replaced.push_back(owner->second);
    }
  }
  const std::vector<std::string> owners = StreamOwners(r);
  if (max_streams_per_client_ > 0) {
    for (const std::string& owner : owners) {
      auto live = client_streams_.find(owner);
      int64_t others = live == client_streams_.end() ? 0 : live->second;
      for (const Connection* c : replaced) {
        const std::vector<std::string> theirs = StreamOwners(streams_.at(c).registration);
        others -= std::count(theirs.begin(), theirs.end(), owner);
      }
      if (others >= max_streams_per_client_) {
        return absl::AlreadyExistsError(
            absl::StrCat(owner, " already has ", others, " live stream(s), the limit"));
      }
    }
  }
  Takeover takeover;
  for (const Connection* c : replaced) {
    takeover.streams.push_back(streams_.at(c).connection);
    for (uint32_t id : Unbind(c)) takeover.participant_ids.push_back(id);
  }
  for (const std::string& owner : owners) ++client_streams_[owner];
  for (uint32_t id : r.participant_ids) {
    if (owner_.insert_or_assign(id, connection.get()).second && id <= num_users_) {
      ++live_in_range_;
    }
  }
  streams_[connection.get()] = Stream{connection, std::move(r), clock_()};
  return takeover;
}

std::vector<uint32_t> Placement::Unbind(const Connection* connection) {
  auto it = streams_.find(connection);
  if (it == streams_.end()) return {};
  std::vector<uint32_t> ids = std::move(it->second.registration.participant_ids);
  for (uint32_t id : ids) {
    if (owner_.erase(id) > 0 && id <= num_users_) --live_in_range_;
  }
  for (const std::string& owner : StreamOwners(it->second.registration)) {
    auto live = client_streams_.find(owner);
    if (--live->second == 0) client_streams_.erase(live);
  }
  streams_.erase(it);
  return ids;
}

bool Placement::Owns(const Connection* connection, uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  return it != owner_.end() && it->second == connection;
}

std::shared_ptr<Connection> Placement::ConnectionOf(uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  if (it == owner_.end()) return nullptr;
  return streams_.at(it->second).connection;
}

const Registration* Placement::RegistrationOf(const Connection* connection) const {
  const auto it = streams_.find(connection);
  return it == streams_.end() ? nullptr : &it->second.registration;
}

std::string Placement::NameOf(const Connection* connection) const {
  auto it = streams_.find(connection);
  return it == streams_.end() ? std::string() : it->second.registration.name;
}

std::string Placement::SigningKeyOf(uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  if (it == owner_.end()) return std::string();
  return streams_.at(it->second).registration.signing_key;
}

void Placement::set_num_users(int64_t num_users) {
  num_users_ = num_users;
  live_in_range_ = static_cast<int64_t>(std::distance(
      owner_.begin(),
      owner_.upper_bound(static_cast<uint32_t>(std::min<int64_t>(num_users, Registry::kAnyUser)))));
}

std::vector<uint32_t> Placement::LiveUsers() const {
  std::vector<uint32_t> ids;
  ids.reserve(owner_.size());
  for (const auto& [id, c] : owner_) {
    if (id <= num_users_) ids.push_back(id);
  }
  return ids;
}

std::vector<std::shared_ptr<Connection>> Placement::Connections() const {
  std::vector<std::shared_ptr<Connection>> out;
  for (const auto& [c, stream] : streams_) out.push_back(stream.connection);
  return out;
}

std::vector<std::shared_ptr<Connection>> Placement::CheckInCandidates(
    absl::Time bound_by, const std::vector<uint32_t>& kept,
    const std::vector<uint32_t>& done) const {
  auto hosts_any_of = [](const Registration& r, const std::vector<uint32_t>& users) {
    return std::any_of(r.participant_ids.begin(), r.participant_ids.end(), [&users](uint32_t id) {
      return std::binary_search(users.begin(), users.end(), id);
    });
  };
  std::vector<std::shared_ptr<Connection>> out;
  for (const auto& [c, stream] : streams_) {
    const Registration& r = stream.registration;
    if (!r.accepts_check_in || hosts_any_of(r, kept)) continue;
    if (stream.bound_at <= bound_by || hosts_any_of(r, done)) out.push_back(stream.connection);
  }
  return out;
}

}  // namespace fedmf::server
