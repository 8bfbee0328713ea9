#include "server/registry.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/csprng.h"
#include "wire/limits.h"

namespace fedmf::server {

absl::StatusOr<std::string> Registry::Register(const v1::RegisterRequest& request,
                                               absl::string_view identity) {
  const std::string& token = request.enrollment_token();
  std::shared_ptr<const Credentials> credentials = credentials_ ? credentials_() : nullptr;
  std::optional<std::string> credential;
  if (credentials != nullptr) {
    credential = credentials->Match(token, identity);
    if (!credential) {
      return absl::UnauthenticatedError(
          "neither the enrollment token nor the TLS identity is in the credentials file");
    }
  } else if (token.size() != token_.size() ||
             CRYPTO_memcmp(token.data(), token_.data(), token_.size()) != 0) {
    return absl::UnauthenticatedError("enrollment token refused");
  }
  if (request.protocol_version() != wire::kProtocolVersion) {
    return absl::InvalidArgumentError(absl::StrCat("protocol_version ", request.protocol_version(),
                                                   " is not supported (need ",
                                                   wire::kProtocolVersion, ")"));
  }
  if (request.signing_public_key().size() != 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "signing_public_key has ", request.signing_public_key().size(), " bytes, need 32"));
  }
  if (request.participant_ids().empty()) {
    return absl::InvalidArgumentError("participant_ids is empty");
  }
  // Bounds the sort below (under the stream router's lock) by the population, whatever was sent.
  if (request.participant_ids_size() > num_users_) {
    return absl::InvalidArgumentError(absl::StrCat("participant_ids lists ",
                                                   request.participant_ids_size(),
                                                   " ids, more than the ", num_users_, " users"));
  }
  Registration r;
  r.name = request.client_name().substr(0, 128);
  r.identity = std::string(identity);
  r.signing_key = request.signing_public_key();
  r.accepts_check_in = request.accepts_check_in();
  r.participant_ids.assign(request.participant_ids().begin(), request.participant_ids().end());
  std::sort(r.participant_ids.begin(), r.participant_ids.end());
  for (size_t i = 0; i < r.participant_ids.size(); ++i) {
    const uint32_t id = r.participant_ids[i];
    if (id < 1 || id > num_users_) {
      return absl::InvalidArgumentError(
          absl::StrCat("participant id ", id, " is outside [1, ", num_users_, "]"));
    }
    if (i > 0 && r.participant_ids[i - 1] == id) {
      return absl::InvalidArgumentError(absl::StrCat("participant id ", id, " is listed twice"));
    }
    if (credential && !credentials->Allows(*credential, id)) {
      return absl::PermissionDeniedError(
          absl::StrCat("participant id ", id, " does not belong to this client's credential"));
    }
  }
  if (credential) r.credential = *std::move(credential);
  const absl::Time now = clock_();
  ExpirePending(now);
  if (pending_.size() >= limits_.max_pending) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many registrations waiting for their stream (", pending_.size(),
                     "); retry after ", absl::FormatDuration(limits_.ttl)));
  }
  if (const std::string client = r.PendingKey();
      !client.empty() && pending_per_client_[client] >= limits_.max_pending_per_client) {
    return absl::ResourceExhaustedError(absl::StrCat(
        r.credential.empty() ? "identity '" : "credential '", client, "' has ",
        limits_.max_pending_per_client, " registrations waiting for their stream, the limit"));
  }
  std::array<uint8_t, 16> bytes{};
  if (absl::Status s = crypto::RandomBytes(absl::MakeSpan(bytes)); !s.ok()) return s;
  std::string session(bytes.begin(), bytes.end());
  r.expires = now + limits_.ttl;
  if (const std::string client = r.PendingKey(); !client.empty()) ++pending_per_client_[client];
  pending_[session] = std::move(r);
  pending_order_.push_back(session);
  return session;
}

void Registry::ExpirePending(absl::Time now) {
  while (!pending_order_.empty()) {
    auto it = pending_.find(pending_order_.front());
    if (it != pending_.end()) {
      if (it->second.expires > now) return;
      ErasePending(it);
    }
    pending_order_.pop_front();
  }
}

void Registry::ErasePending(absl::flat_hash_map<std::string, Registration>::iterator it) {
  if (const std::string client = it->second.PendingKey(); !client.empty()) {
    auto count = pending_per_client_.find(client);
    if (--count->second == 0) pending_per_client_.erase(count);
  }
  pending_.erase(it);
}

std::vector<std::string> Registry::Registration::StreamOwners() const {
  std::vector<std::string> owners;
  if (!identity.empty()) owners.push_back(absl::StrCat("identity '", identity, "'"));
  if (!credential.empty() && credential != IdentityCredential(identity)) {
    owners.push_back(absl::StrCat("credential '", credential, "'"));
  }
  return owners;
}

absl::StatusOr<absl::flat_hash_map<std::string, Registry::Registration>::iterator>
Registry::FindPending(absl::string_view session_token, absl::string_view identity) {
  ExpirePending(clock_());
  auto it = pending_.find(std::string(session_token));
  if (it == pending_.end()) {
    return absl::NotFoundError("unknown or expired session token: register again");
  }
  // A session token that left its client (a copy, or one registered before the certificate
  // was revoked) opens nothing from another certificate.
  if (it->second.identity != identity) {
    return absl::PermissionDeniedError(
        absl::StrCat("the session token was issued on TLS identity '", it->second.identity,
                     "', not on this stream's '", identity, "'"));
  }
  return it;
}

absl::Status Registry::CheckPending(absl::string_view session_token, absl::string_view identity) {
  return FindPending(session_token, identity).status();
}

absl::StatusOr<Registry::Takeover> Registry::Bind(absl::string_view session_token,
                                                  const std::shared_ptr<Connection>& connection) {
  if (streams_.contains(connection.get())) {
    return absl::FailedPreconditionError("stream already presented a session token");
  }
  absl::StatusOr<absl::flat_hash_map<std::string, Registration>::iterator> found =
      FindPending(session_token, connection->identity());
  if (!found.ok()) return found.status();
  auto it = *found;
  const Registration& r = it->second;
  // Live streams hosting some of its users: replaced if they hold the same credential (the
  // holder reconnected before its old stream was seen to end), else the registration is refused
  // and used up, so that a claimant cannot retry it until the holder's stream drops.
  std::vector<const Connection*> replaced;
  for (uint32_t id : r.participant_ids) {
    auto owner = owner_.find(id);
    if (owner == owner_.end()) continue;
    const Stream& holder = streams_.at(owner->second);
    if (r.credential.empty() || holder.registration.credential != r.credential) {
      ErasePending(it);
      return absl::AlreadyExistsError(absl::StrCat(
          "participant ", id, " is already hosted by another live stream; register again"));
    }
    if (std::find(replaced.begin(), replaced.end(), owner->second) == replaced.end()) {
      replaced.push_back(owner->second);
    }
  }
  const std::vector<std::string> owners = r.StreamOwners();
  if (max_streams_per_client_ > 0) {
    for (const std::string& owner : owners) {
      auto live = client_streams_.find(owner);
      int64_t others = live == client_streams_.end() ? 0 : live->second;
      for (const Connection* c : replaced) {
        const std::vector<std::string> theirs = streams_.at(c).registration.StreamOwners();
        others -= std::count(theirs.begin(), theirs.end(), owner);
      }
      if (others >= max_streams_per_client_) {
        ErasePending(it);
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
  streams_[connection.get()] = Stream{connection, r, clock_()};
  ErasePending(it);
  return takeover;
}

std::vector<uint32_t> Registry::Unbind(const Connection* connection) {
  auto it = streams_.find(connection);
  if (it == streams_.end()) return {};
  std::vector<uint32_t> ids = std::move(it->second.registration.participant_ids);
  for (uint32_t id : ids) {
    if (owner_.erase(id) > 0 && id <= num_users_) --live_in_range_;
  }
  for (const std::string& owner : it->second.registration.StreamOwners()) {
    auto live = client_streams_.find(owner);
    if (--live->second == 0) client_streams_.erase(live);
  }
  streams_.erase(it);
  return ids;
}

bool Registry::Owns(const Connection* connection, uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  return it != owner_.end() && it->second == connection;
}

std::shared_ptr<Connection> Registry::ConnectionOf(uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  if (it == owner_.end()) return nullptr;
  return streams_.at(it->second).connection;
}

std::string Registry::NameOf(const Connection* connection) const {
  auto it = streams_.find(connection);
  return it == streams_.end() ? std::string() : it->second.registration.name;
}

std::string Registry::SigningKeyOf(uint32_t participant_id) const {
  auto it = owner_.find(participant_id);
  if (it == owner_.end()) return std::string();
  return streams_.at(it->second).registration.signing_key;
}

void Registry::set_num_users(int64_t num_users) {
  num_users_ = num_users;
  live_in_range_ = static_cast<int64_t>(std::distance(
      owner_.begin(),
      owner_.upper_bound(static_cast<uint32_t>(std::min<int64_t>(num_users, kAnyUser)))));
}

std::vector<uint32_t> Registry::LiveUsers() const {
  std::vector<uint32_t> ids;
  ids.reserve(owner_.size());
  for (const auto& [id, c] : owner_) {
    if (id <= num_users_) ids.push_back(id);
  }
  return ids;
}

std::vector<std::shared_ptr<Connection>> Registry::Connections() const {
  std::vector<std::shared_ptr<Connection>> out;
  for (const auto& [c, stream] : streams_) out.push_back(stream.connection);
  return out;
}

std::vector<std::shared_ptr<Connection>> Registry::CheckInCandidates(
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
