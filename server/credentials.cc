#include "server/credentials.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crypto/csprng.h"

namespace fedmf::server {
namespace {

constexpr absl::string_view kTokenPrefix = "token-sha256:";
constexpr absl::string_view kIdentityPrefix = "identity:";

absl::Status LineError(size_t line, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", message));
}

// "1-40,45" as inclusive ranges, ascending (not merged).
absl::StatusOr<std::vector<std::pair<uint32_t, uint32_t>>> ParseIds(absl::string_view text) {
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<absl::string_view, absl::string_view> bounds = absl::StrSplit(item, '-');
    if (bounds.second.empty()) bounds.second = bounds.first;
    uint32_t lo = 0, hi = 0;
    if (!absl::SimpleAtoi(bounds.first, &lo) || !absl::SimpleAtoi(bounds.second, &hi) || lo < 1 ||
        hi < lo) {
      return absl::InvalidArgumentError(
          absl::StrCat("ids '", item, "': need N or A-B with 1 <= A <= B"));
    }
    ranges.emplace_back(lo, hi);
  }
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

}  // namespace

std::string TokenCredential(absl::string_view token) {
  std::array<unsigned char, 32> digest{};
  unsigned int size = 0;
  EVP_Digest(token.data(), token.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return absl::StrCat(kTokenPrefix,
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest.data()), digest.size())));
}

std::string IdentityCredential(absl::string_view identity) {
  return absl::StrCat(kIdentityPrefix, identity);
}

absl::StatusOr<Credentials> Credentials::Parse(absl::string_view text) {
  Credentials out;
  std::map<std::string, size_t> line_of;
  // Every range with its line, to find ids claimed by two credentials.
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, size_t>> all;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.size() != 2) {
      return LineError(number, "need two fields: a credential and its participant ids");
    }
    const std::string credential(fields[0]);
    if (absl::StartsWith(credential, kTokenPrefix)) {
      const absl::string_view hex = absl::string_view(credential).substr(kTokenPrefix.size());
      if (hex.size() != 64 || !std::all_of(hex.begin(), hex.end(), [](char c) {
            return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
          })) {
        return LineError(number, "token-sha256: needs 64 lowercase hex digits");
      }
    } else if (!absl::StartsWith(credential, kIdentityPrefix) ||
               credential.size() == kIdentityPrefix.size()) {
      return LineError(number, absl::StrCat("credential '", credential,
                                            "': need token-sha256:<hex> or identity:<name>"));
    }
    if (auto [it, inserted] = line_of.emplace(credential, number); !inserted) {
      return LineError(number,
                       absl::StrCat("credential listed twice (first on line ", it->second, ")"));
    }
    absl::StatusOr<std::vector<std::pair<uint32_t, uint32_t>>> ranges = ParseIds(fields[1]);
    if (!ranges.ok()) return LineError(number, ranges.status().message());
    for (const auto& range : *ranges) all.push_back({range, number});
    out.ranges_[credential] = *std::move(ranges);
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i].first.first <= all[i - 1].first.second) {
      const size_t later = std::max(all[i].second, all[i - 1].second);
      const size_t earlier = std::min(all[i].second, all[i - 1].second);
      return LineError(later, absl::StrCat("participant id ", all[i].first.first,
                                           " also belongs to the credential on line ", earlier));
    }
  }
  return out;
}

std::optional<std::string> Credentials::Match(absl::string_view token,
                                              absl::string_view identity) const {
  if (!identity.empty()) {
    std::string credential = IdentityCredential(identity);
    if (ranges_.contains(credential)) return credential;
  }
  if (!token.empty()) {
    std::string credential = TokenCredential(token);
    if (ranges_.contains(credential)) return credential;
  }
  return std::nullopt;
}

bool Credentials::Allows(const std::string& credential, uint32_t participant_id) const {
  auto it = ranges_.find(credential);
  if (it == ranges_.end()) return false;
  const auto& ranges = it->second;
  auto after =
      std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(participant_id, UINT32_MAX));
  return after != ranges.begin() && std::prev(after)->second >= participant_id;
}

absl::StatusOr<std::string> IssueToken(const std::string& path, absl::string_view ids) {
  std::array<uint8_t, 32> bytes{};
  if (absl::Status s = crypto::RandomBytes(absl::MakeSpan(bytes)); !s.ok()) return s;
  const std::string token = absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  const std::string line = absl::StrCat(TokenCredential(token), " ", ids, "\n");
  std::string current;
  if (std::ifstream in(path, std::ios::binary); in) {
    std::ostringstream content;
    content << in.rdbuf();
    current = content.str();
  }
  const std::string separator = current.empty() || current.back() == '\n' ? "" : "\n";
  if (absl::StatusOr<Credentials> checked = Credentials::Parse(current + separator + line);
      !checked.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "credentials file ", path, " with the new token: ", checked.status().message()));
  }
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  const std::string text = separator + line;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = fsync(fd) == 0;
  close(fd);
  if (!written || !synced) return absl::DataLossError(absl::StrCat(path, ": write failed"));
  return token;
}

}  // namespace fedmf::server
