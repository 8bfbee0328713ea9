// Which participant ids each client credential may host (--credentials_file), so that an id is
// not a claim anyone enrolled can make. A client proves a credential with its own enrollment
// token (listed by its SHA-256, so the file holds no secret; `fedmf-coordinator issue-token` makes
// one) or with its mutual-TLS identity. One line per credential:
//
//   # credential                                                            participant ids
//   token-sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 1-40,45
//   identity:client-3                                                       41-80
//
// Ids are comma-separated single ids or inclusive ranges; no id may belong to two credentials.
// Blank lines and lines starting with '#' are ignored.
#ifndef FEDMF_SERVER_CREDENTIALS_H_
#define FEDMF_SERVER_CREDENTIALS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::server {

class Credentials {
 public:
  // kInvalidArgument naming the line (1-based) and the field for a malformed file.
  static absl::StatusOr<Credentials> Parse(absl::string_view text);

  // The credential a registration proves: "identity:<identity>" if that is listed, else
  // "token-sha256:<hex>" of `token` if that is; nullopt if neither.
  std::optional<std::string> Match(absl::string_view token, absl::string_view identity) const;
  // Whether `credential` (listed) may host `participant_id`.
  bool Allows(const std::string& credential, uint32_t participant_id) const;
  size_t size() const { return ranges_.size(); }

 private:
  // Inclusive id ranges of each credential, ascending and disjoint.
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges_;
};

// "token-sha256:" and the lowercase hex SHA-256 of `token`.
std::string TokenCredential(absl::string_view token);
// "identity:" and `identity`.
std::string IdentityCredential(absl::string_view identity);

// Makes a fresh random enrollment token for `ids` (the file's id syntax), appends its line to the
// credentials file `path` (created, mode 0600, if absent) after checking that the result still
// parses (no id of another credential), and returns the token: only its hash is stored.
absl::StatusOr<std::string> IssueToken(const std::string& path, absl::string_view ids);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CREDENTIALS_H_
