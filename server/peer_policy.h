// Who may register, by TLS identity: with mutual TLS every client must present one (the CN of its
// certificate, server_tls.h), and identities listed in the revocation file are refused. The file
// is read at start and re-read when it changes (checked at most once per check interval, at a
// registration, a stream open, a message of a stream or the coordinator's sweep of live streams),
// so revoking needs no restart: a revoked client's live stream ends at its next message (the
// stream router checks every one) or, if it sends nothing, at the coordinator's sweep (every
// second), and its next registration or stream open is refused. Thread-safe.
#ifndef FEDMF_SERVER_PEER_POLICY_H_
#define FEDMF_SERVER_PEER_POLICY_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/watched_file.h"

namespace fedmf::server {

// One identity per line; surrounding white space is ignored, so are empty lines and lines whose
// first non-blank character is '#'.
absl::flat_hash_set<std::string> ParseRevokedIdentities(absl::string_view text);

class RevocationList {
 public:
  // Reads `path` (NotFound / PermissionDenied naming it if it cannot be read).
  static absl::StatusOr<std::unique_ptr<RevocationList>> Load(
      std::string path, absl::Duration check_interval = absl::Seconds(1));

  // Re-reads the file first if it changed (modification time, size or inode) and the last check
  // is check_interval old. If the re-read fails (e.g. the file is being replaced), the previous
  // list stays in force and event=warning says why.
  bool IsRevoked(absl::string_view identity) { return file_->Get()->contains(identity); }
  size_t size() { return file_->Get()->size(); }

 private:
  using File = WatchedFile<absl::flat_hash_set<std::string>>;
  explicit RevocationList(std::unique_ptr<File> file) : file_(std::move(file)) {}

  const std::unique_ptr<File> file_;
};

class PeerPolicy {
 public:
  // `require_identity`: mutual TLS is on; `revoked` may be null (nothing revoked).
  PeerPolicy(bool require_identity, std::unique_ptr<RevocationList> revoked)
      : require_identity_(require_identity), revoked_(std::move(revoked)) {}

  // OK if `identity` (empty: the peer presented none) may register; UNAUTHENTICATED when an
  // identity is required and missing, PERMISSION_DENIED when it is revoked.
  absl::Status Admit(absl::string_view identity);
  // Whether a revocation list is in force (IsRevoked can ever be true).
  bool revokes() const { return revoked_ != nullptr; }
  bool IsRevoked(absl::string_view identity) {
    return revoked_ != nullptr && revoked_->IsRevoked(identity);
  }

 private:
  const bool require_identity_;
  const std::unique_ptr<RevocationList> revoked_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_PEER_POLICY_H_
