#include "server/registry.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/csprng.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

// Who max_pending_per_client counts a registration against (empty: nobody).
std::string PendingKey(const Registration& r) {
  return r.credential.empty() ? r.identity : r.credential;
}

}  // namespace

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
  if (const std::string client = PendingKey(r);
      !client.empty() && pending_per_client_[client] >= limits_.max_pending_per_client) {
    return absl::ResourceExhaustedError(absl::StrCat(
        r.credential.empty() ? "identity '" : "credential '", client, "' has ",
        limits_.max_pending_per_client, " registrations waiting for their stream, the limit"));
  }
  std::array<uint8_t, 16> bytes{};
  if (absl::Status s = crypto::RandomBytes(absl::MakeSpan(bytes)); !s.ok()) return s;
  std::string session(bytes.begin(), bytes.end());
  if (const std::string client = PendingKey(r); !client.empty()) ++pending_per_client_[client];
  pending_[session] = Pending{std::move(r), now + limits_.ttl};
  pending_order_.push_back(session);
  return session;
}

void Registry::ExpirePending(absl::Time now) {
  while (!pending_order_.empty()) {
    auto it = pending_.find(pending_order_.front());
    if (it != pending_.end()) {
      if (it->second.expires > now) return;
      TakePending(it);
    }
    pending_order_.pop_front();
  }
}

Registration Registry::TakePending(PendingMap::iterator it) {
  if (const std::string client = PendingKey(it->second.registration); !client.empty()) {
    auto count = pending_per_client_.find(client);
    if (--count->second == 0) pending_per_client_.erase(count);
  }
  Registration r = std::move(it->second.registration);
  pending_.erase(it);
  return r;
}

absl::StatusOr<Registry::PendingMap::iterator> Registry::FindPending(
    absl::string_view session_token, absl::string_view identity) {
  ExpirePending(clock_());
  auto it = pending_.find(std::string(session_token));
  if (it == pending_.end()) {
    return absl::NotFoundError("unknown or expired session token: register again");
  }
  // A session token that left its client (a copy, or one registered before the certificate
  // was revoked) opens nothing from another certificate.
  if (it->second.registration.identity != identity) {
    return absl::PermissionDeniedError(
        absl::StrCat("the session token was issued on TLS identity '",
                     it->second.registration.identity, "', not on this stream's '", identity, "'"));
  }
  return it;
}

absl::Status Registry::CheckPending(absl::string_view session_token, absl::string_view identity) {
  return FindPending(session_token, identity).status();
}

absl::StatusOr<Registration> Registry::Redeem(absl::string_view session_token,
                                              absl::string_view identity) {
  absl::StatusOr<PendingMap::iterator> found = FindPending(session_token, identity);
  if (!found.ok()) return found.status();
  return TakePending(*found);
}

}  // namespace fedmf::server
