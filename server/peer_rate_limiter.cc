#include "server/peer_rate_limiter.h"

#include "absl/strings/match.h"

namespace fedmf::server {

absl::string_view PeerAddress(absl::string_view peer) {
  if (!absl::StartsWith(peer, "ipv4:") && !absl::StartsWith(peer, "ipv6:")) return peer;
  const size_t colon = peer.rfind(':');
  // The scheme's own colon is the only one: no port to strip.
  return colon <= 4 ? peer : peer.substr(0, colon);
}

bool PeerRateLimiter::Allow(absl::string_view peer, absl::Time now) {
  if (rate_ <= 0) return true;
  const absl::string_view address = PeerAddress(peer);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_peers_) {
      absl::erase_if(buckets_, [now](const auto& entry) { return entry.second.Full(now); });
      if (buckets_.size() >= max_peers_) return false;
    }
    it = buckets_.emplace(std::string(address), TokenBucket(rate_, burst_, now)).first;
  }
  return it->second.Take(now);
}

size_t PeerRateLimiter::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buckets_.size();
}

}  // namespace fedmf::server
