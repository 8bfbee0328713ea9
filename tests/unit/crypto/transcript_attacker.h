// Test support for the scale-out wire check (docs/scale-out.md, sections 3 and 11 item 3 (ii)):
// what a server-side party saw of one SecAgg session (a front: every message to and from its
// members; the combiner: every message but the individual masked inputs, plus each front's
// partial sum; or a coalition of them), and an attacker that rebuilds every secret the revealed
// shares in that view allow (b_u from >= t self-mask shares, s_SK from >= t key shares), removes
// every mask it can from the masked inputs it holds of a group, and returns its best estimate of
// the group's unmasked sum.
#ifndef FEDMF_TESTS_UNIT_CRYPTO_TRANSCRIPT_ATTACKER_H_
#define FEDMF_TESTS_UNIT_CRYPTO_TRANSCRIPT_ATTACKER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/graph.h"
#include "crypto/secagg/partial_sum.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg::test_util {

// What one party received and sent (or relayed) of a session.
struct PartyView {
  using Received = std::vector<std::pair<uint32_t, fedmf::v1::secagg::ClientToServer>>;
  using Sent = std::vector<std::pair<uint32_t, fedmf::v1::secagg::ServerToClient>>;
  Received received;
  Sent sent;
  std::vector<PartialSum> partials;
};

// Front f: every message to and from its members G_f.
PartyView FrontView(const Transcript& transcript, const std::set<uint32_t>& members);
// The combiner: every message but the MaskedInputs, plus per group the partial sum of the masked
// inputs its members sent (a group none of whose inputs arrived sends none).
absl::StatusOr<PartyView> CombinerView(const SessionConfig& config, const Transcript& transcript,
                                       const std::vector<std::set<uint32_t>>& groups);
// What two parties together saw (each message once).
PartyView Coalition(const PartyView& a, const PartyView& b);

// The clients whose AdvertiseKeys the server received: the graph's nodes. The attacker is given
// them as public (a front knows only its members' neighbours): more than a front sees, which only
// helps it.
std::vector<uint32_t> AdvertisedIds(const Transcript& transcript);

struct GroupSumEstimate {
  std::vector<uint64_t> sum;      // the best estimate of the sum of x_u over `members`
  std::vector<uint32_t> members;  // the group's clients whose masked input the view holds
  int self_masks_left = 0;        // members whose b_u the view does not rebuild
  // Masks on edges from a member to a neighbour outside `members` whose shares were relayed to
  // it, where neither end's s_SK is rebuilt.
  int pairwise_masks_left = 0;
};

class TranscriptAttacker {
 public:
  // Reads the view: the session id and public keys (ShareKeysRequests and AdvertiseKeys), and
  // every secret with >= t revealed shares. kInvalidArgument if the view has no ShareKeysRequest
  // or a share does not rebuild.
  static absl::StatusOr<TranscriptAttacker> Create(const SessionConfig& config,
                                                   std::vector<uint32_t> advertised,
                                                   const PartyView& view);

  const NeighborGraph& graph() const { return graph_; }

  // The masked inputs the view holds of `group`'s members (its partial sums with members all in
  // `group` first, then individual MaskedInputs), minus every self mask and pairwise mask the
  // rebuilt secrets give.
  absl::StatusOr<GroupSumEstimate> GroupSum(const std::set<uint32_t>& group) const;

 private:
  TranscriptAttacker(SessionConfig config, NeighborGraph graph)
      : config_(std::move(config)), graph_(std::move(graph)) {}

  SessionConfig config_;
  NeighborGraph graph_;
  std::map<uint32_t, std::string> masked_inputs_;  // packed y_u
  std::vector<PartialSum> partials_;
  SessionId sid_{};
  std::map<uint32_t, crypto::X25519PublicKey> s_public_;
  std::map<uint32_t, std::vector<uint32_t>> relayed_;  // senders in each MaskedInputRequest
  std::map<uint32_t, crypto::SecretBytes> self_mask_secrets_;
  std::map<uint32_t, crypto::X25519PrivateKey> masking_keys_;
};

}  // namespace fedmf::secagg::test_util

#endif  // FEDMF_TESTS_UNIT_CRYPTO_TRANSCRIPT_ATTACKER_H_
