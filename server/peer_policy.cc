#include "server/peer_policy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/util/event_log.h"

namespace fedmf::server {

absl::flat_hash_set<std::string> ParseRevokedIdentities(absl::string_view text) {
  absl::flat_hash_set<std::string> identities;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    identities.insert(std::string(line));
  }
  return identities;
}

absl::StatusOr<std::unique_ptr<RevocationList>> RevocationList::Load(
    std::string path, absl::Duration check_interval) {
  absl::StatusOr<std::unique_ptr<File>> file = File::Load(
      std::move(path), "revoked identities file",
      [](absl::string_view text) -> absl::StatusOr<absl::flat_hash_set<std::string>> {
        return ParseRevokedIdentities(text);
      },
      [](const std::string& path, const absl::flat_hash_set<std::string>& revoked) {
        EventLine("revocation_list").Add("file", path).Add("revoked_identities", revoked.size());
      },
      check_interval);
  if (!file.ok()) return file.status();
  return std::unique_ptr<RevocationList>(new RevocationList(*std::move(file)));
}

absl::Status PeerPolicy::Admit(absl::string_view identity) {
  if (identity.empty()) {
    if (require_identity_) {
      return absl::UnauthenticatedError("mutual TLS: no verified client certificate identity");
    }
    return absl::OkStatus();
  }
  if (IsRevoked(identity)) {
    return absl::PermissionDeniedError(absl::StrCat("identity '", identity, "' is revoked"));
  }
  return absl::OkStatus();
}

}  // namespace fedmf::server
