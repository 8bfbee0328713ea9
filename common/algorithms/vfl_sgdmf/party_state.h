// A VFL-SGDMF party's own state: lib/fmf_party/party_round.h with its item embeddings V_Fk as the
// held embeddings (a retried round, same U broadcast, recomputes the same upload), and the public
// initial embeddings every party and the coordinator start from.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/fmf_party/party_round.h"
#include "common/dp/rng.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

using fmf_party::RoundNoiseRng;
using fmf_party::RoundStart;

// fmf_party::StartRound with the party's V_Fk as its held embeddings (m_k x p; round 0: the public
// initial V_Fk). `global_items`: the party's items (ascending global ids).
absl::StatusOr<RoundStart> StartRound(const v1::VflSgdmfConfig& config, absl::string_view state,
                                      int64_t round, const std::vector<int32_t>& global_items,
                                      dp::Rng& rng);

// The public initial U (n x p) and the rows `global_items` of the public initial V (m x p), both
// from dp::Rng(config.seed, 1) as fmf_sgd's central run draws them (U first, then V).
absl::StatusOr<Eigen::MatrixXd> InitialUsers(const v1::VflSgdmfConfig& config);
absl::StatusOr<Eigen::MatrixXd> InitialPartyItems(const v1::VflSgdmfConfig& config,
                                                  const std::vector<int32_t>& global_items);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PARTY_STATE_H_
