// VFL-SGDMF's run configuration (fedmf.v1.VflSgdmfConfig, it also travels in every plan): its
// checks, the fmf_sgd::DpSgdMfConfig a party trains with, and the shape of each round's plan, which
// the coordinator builds and every party checks. Rounds 0 .. T-1 are syncs (each party uploads
// (m_k / m) U^(k), n p values); round T is the final stage (kappa V-only steps at each party, which
// uploads its error sums: kFinalReportLength values). --rounds is T + 1. The
// local-only baseline (config.local_only) has no sync: its one round is the final stage, in which
// each party first runs all T T' steps alone.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONFIG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/fmf_party/party_plan.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

inline constexpr absl::string_view kAlgorithmName = "vfl-sgdmf";

// InvalidArgument naming the first bad field (a config may come from the network).
absl::Status ValidateConfig(const v1::VflSgdmfConfig& config);

// The DP-SGD settings of every party: steps = T T', item_only_steps = kappa, embedding clipping.
fmf_sgd::DpSgdMfConfig StepConfig(const v1::VflSgdmfConfig& config);

// Rounds of the run: the sync rounds (T, none when local-only) and the final stage.
int64_t SyncRounds(const v1::VflSgdmfConfig& config);
int64_t TotalRounds(const v1::VflSgdmfConfig& config);
bool IsFinalRound(const v1::VflSgdmfConfig& config, int64_t round);
// The final round's upload (lib/fmf_party/party_error.h): the party's test squared error and test
// ratings, then its training squared error and training ratings.
inline constexpr uint64_t kFinalReportLength = 4;
// Whether `round`'s noisy steps update U (syncs, and local-only's one round) or V alone.
bool UpdatesUsers(const v1::VflSgdmfConfig& config, int64_t round);

// The shape of `round`'s plan and sum (lib/fmf_party/party_plan.h); its codec's errors.
absl::StatusOr<fmf_party::RoundShape> RoundShapeOf(const v1::VflSgdmfConfig& config, int64_t round);

// The plan of `round` (in [0, TotalRounds], the last one carrying the trained U after the run)
// without its payload: algorithm, round, phase 0, length, bits, client_bits, combination and
// min = max contributors = s (every sum holds every party: U is their weighted average).
absl::StatusOr<v1::RoundPlan> PlanShape(const v1::VflSgdmfConfig& config, int64_t round);

// OK iff `plan` has exactly PlanShape's fields (everything but the algorithm and the payload);
// InvalidArgument naming the first field that differs.
absl::Status CheckPlanShape(const v1::VflSgdmfConfig& config, const v1::RoundPlan& plan);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONFIG_H_
