#include "server/peer_policy.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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
  std::unique_ptr<RevocationList> list(new RevocationList(std::move(path), check_interval));
  std::lock_guard<std::mutex> lock(list->mu_);
  if (absl::Status s = list->Reload(); !s.ok()) return s;
  list->last_check_ = absl::Now();
  return list;
}

absl::Status RevocationList::Reload() {
  struct stat st {};
  if (stat(path_.c_str(), &st) != 0) {
    const int error = errno;
    const std::string message =
        absl::StrCat("revoked identities file ", path_, ": ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat("cannot open ", path_));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path_));
  revoked_ = ParseRevokedIdentities(content.str());
  version_ = Version{st.st_mtim, st.st_size, st.st_ino};
  EventLine("revocation_list").Add("file", path_).Add("revoked_identities", revoked_.size());
  return absl::OkStatus();
}

void RevocationList::RefreshIfChanged() {
  const absl::Time now = absl::Now();
  if (now - last_check_ < check_interval_) return;
  last_check_ = now;
  struct stat st {};
  if (stat(path_.c_str(), &st) == 0 && Version{st.st_mtim, st.st_size, st.st_ino} == version_) {
    return;
  }
  if (absl::Status s = Reload(); !s.ok()) {
    EventLine("warning")
        .Add("revocation_list", s.ToString())
        .Add("effect", "the previous list stays in force");
  }
}

bool RevocationList::IsRevoked(absl::string_view identity) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshIfChanged();
  return revoked_.contains(identity);
}

size_t RevocationList::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return revoked_.size();
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
