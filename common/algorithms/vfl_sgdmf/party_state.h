// A VFL-SGDMF party's own state (fedmf.v1.VflSgdmfPartyState), kept on its device by the runtime
// and never sent: its item embeddings V_Fk before and after the last round it computed, and the
// secret 128-bit key of its noise, drawn once from the runtime's generator. The noise of round t
// comes from a generator keyed by (key, t) only, so a round the coordinator abandoned and retries
// (same U broadcast) is recomputed from the same V with the same noise: the retry's upload equals
// the first one and releases nothing new. A party that lost its state cannot rejoin after round 0.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/rng.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

// A party about to compute `round`: its key and the V_Fk the round starts from.
struct RoundStart {
  uint64_t key[2] = {0, 0};
  Eigen::MatrixXd items;  // m_k x p
};

// From the party's `state` bytes ("" before its first round): a fresh key from `rng` and the public
// initial V_Fk for round 0; items_before when `round` is the state's own round (a retry);
// items_after when it is the next one. FailedPrecondition for any other round (the party lost
// rounds, e.g. restarted without its state); InvalidArgument for corrupt bytes or a V of another
// shape. `global_items`: the party's items (ascending global ids).
absl::StatusOr<RoundStart> StartRound(const v1::VflSgdmfConfig& config, absl::string_view state,
                                      int64_t round, const std::vector<int32_t>& global_items,
                                      dp::Rng& rng);

// The state after computing `round` from `start` to `items`.
std::string EncodePartyState(const RoundStart& start, int64_t round, const Eigen::MatrixXd& items);

// The generator of the party's noise in `round`: keyed by 128 bits drawn from Rng(key) after
// skipping 2 round words.
dp::Rng RoundNoiseRng(const uint64_t key[2], int64_t round);

// The public initial U (n x p) and the rows `global_items` of the public initial V (m x p), both
// from dp::Rng(config.seed, 1) as fmf_sgd's central run draws them (U first, then V).
absl::StatusOr<Eigen::MatrixXd> InitialUsers(const v1::VflSgdmfConfig& config);
absl::StatusOr<Eigen::MatrixXd> InitialPartyItems(const v1::VflSgdmfConfig& config,
                                                  const std::vector<int32_t>& global_items);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_
