// Parameters of one secure aggregation session, known to the server and to every client before
// the session starts (the runtime distributes them), and their canonical digest, which is bound
// into every signature and into the session id.
#ifndef FEDMF_CRYPTO_SECAGG_CONFIG_H_
#define FEDMF_CRYPTO_SECAGG_CONFIG_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fedmf/v1/secagg_params.pb.h"

namespace fedmf::secagg {

// Complete graph: every client masks with and shares with every other (Bonawitz et al. 2017).
// Harary: a random k-regular Harary graph over the clients that advertised keys (Bell et al.
// 2020, "SecAgg+"); see graph.h.
enum class GraphKind { kComplete = 0, kHarary = 1 };

inline constexpr int kMaxBits = 62;
inline constexpr size_t kMaxLength = size_t{1} << 28;
inline constexpr int kMaxClients = 1 << 20;
inline constexpr size_t kMaxContextSize = 1024;

struct SessionConfig {
  // Unique per aggregation (e.g. "run-7/round-12"): keeps signatures and derived keys of one
  // session from being replayed into another.
  std::string context;
  int num_clients = 0;  // n: clients invited (cohort size), 2..kMaxClients
  // t: Shamir threshold, 2 <= t. Every secret needs t shares, every stage needs t clients left
  // (for Harary graphs: t left in each client's closed neighborhood).
  int threshold = 0;
  int bits = 0;       // b: inputs and the sum are in Z_{2^b}, 1..62
  size_t length = 0;  // d: vector length, 1..kMaxLength
  GraphKind graph = GraphKind::kComplete;
  // k for Harary graphs: even, 2 <= k; a client's closed neighborhood has k + 1 members (the
  // graph is complete when k >= number of advertising clients - 1). Ignored (0) for kComplete.
  int degree = 0;
  // Clients sign their key advertisements with Ed25519 keys known to all through a directory.
  bool signatures = false;
  // Bonawitz's consistency round (clients sign the survivor list); needs signatures and the
  // complete graph (docs/protocol.md explains why not for sparse graphs).
  bool consistency_check = false;
};

// kInvalidArgument naming the first field out of range (including t > n, t > k + 1, odd k, a
// consistency check without signatures or with a Harary graph).
absl::Status ValidateConfig(const SessionConfig& config);

// The config's wire form (fedmf.v1.SecAggParams, proto/fedmf/v1/secagg_params.proto) and back;
// ConfigFromProto validates (ValidateConfig), so a malformed message is an error, never a crash.
fedmf::v1::SecAggParams ConfigToProto(const SessionConfig& config);
absl::StatusOr<SessionConfig> ConfigFromProto(const fedmf::v1::SecAggParams& params);

// SHA-256 of a fixed-width encoding of every field (docs/protocol.md, "Config digest"); kInternal
// only if OpenSSL fails.
absl::StatusOr<std::array<uint8_t, 32>> ConfigDigest(const SessionConfig& config);

// Bytes of a packed vector of `length` b-bit values: ceil(length * bits / 8).
constexpr size_t PackedSize(size_t length, int bits) {
  return (length * static_cast<size_t>(bits) + 7) / 8;
}

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_CONFIG_H_
