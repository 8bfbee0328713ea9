// The per-message bounds of an aggregation, from its task (message_bounds.h).
#include "server/message_bounds.h"

#include <algorithm>
#include <limits>

#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/shamir.h"

namespace fedmf::server {
namespace {

// Bytes per neighbor: its share ciphertext with the two share commitments, or two revealed shares
// with their salts, each with its id, tags and lengths (16 bytes at most).
constexpr uint64_t kBytesPerNeighbor = 320;
static_assert(secagg::kShareCiphertextSize + 2 * secagg::kCommitmentSize + 16 <=
                      kBytesPerNeighbor &&
                  2 * (crypto::kShamirShareSize + secagg::kShareSaltSize + 16) <=
                      kBytesPerNeighbor,
              "a neighbor's part of a SecAgg message outgrew its room");
constexpr uint64_t kElementsPerNeighbor = 4;
constexpr uint64_t kBytesPerClearCoordinate = 20;  // two varints of at most 10 bytes
constexpr uint64_t kElementsPerClearCoordinate = 2;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t Times(uint64_t a, uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }
uint64_t Plus(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }

}  // namespace

MessageBounds BoundsOf(const v1::RoundTask& task, uint64_t max_upload_bytes) {
  MessageBounds bounds = kUnplannedBounds;
  const bool clear = task.plan().combination() == v1::COMBINATION_CLEAR ||
                     task.simulation_plain_sum() || !task.has_secagg();
  if (clear) {
    const uint64_t d = task.plan().length();
    bounds.max_bytes = Plus(bounds.max_bytes, Times(d, kBytesPerClearCoordinate));
    bounds.max_elements = Plus(bounds.max_elements, Times(d, kElementsPerClearCoordinate));
  } else {
    const v1::SecAggParams& p = task.secagg();
    const uint64_t n = static_cast<uint64_t>(std::max(p.num_clients(), 1));
    const uint64_t closed_neighborhood =
        p.harary_graph() ? std::min<uint64_t>(static_cast<uint64_t>(std::max(p.degree(), 0)) + 1, n)
                         : n;
    // bits beyond the protocol's are refused by the session; bounded here only against overflow
    const int bits = std::clamp(p.bits(), 0, secagg::kMaxBits);
    const uint64_t packed = Plus(Times(p.length(), static_cast<uint64_t>(bits)), 7) / 8;
    bounds.max_bytes =
        Plus(Plus(bounds.max_bytes, packed), Times(closed_neighborhood, kBytesPerNeighbor));
    bounds.max_elements =
        Plus(bounds.max_elements, Times(closed_neighborhood, kElementsPerNeighbor));
  }
  bounds.max_bytes = std::min(bounds.max_bytes, max_upload_bytes);
  return bounds;
}

MessageBounds Larger(const MessageBounds& a, const MessageBounds& b) {
  return {.max_bytes = std::max(a.max_bytes, b.max_bytes),
          .max_elements = std::max(a.max_elements, b.max_elements)};
}

}  // namespace fedmf::server
