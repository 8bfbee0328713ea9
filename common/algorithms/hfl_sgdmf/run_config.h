// HFL-SGDMF on the runtime (fedmf.v1.HflSgdmfConfig, it also travels in every plan): its checks,
// the in-process HflConfig it runs (config.h), the codec of each round's upload and the shape of
// each round's plan, which the coordinator builds and every party checks. Rounds 0 .. S-1 are
// syncs, S = SyncCount (config.h; round 0 first runs stage 1 at the party): pretrain-u and
// train-both upload (n_k / n) V^(k), HFL-synSGD (S = T T') its noisy V gradient sum G~_k, m p
// values each; round S is the final stage (each party fine-tunes locally and uploads its error
// sums: kFinalReportLength values). --rounds is S + 1. Local-only needs no network.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_RUN_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_RUN_CONFIG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"
#include "common/algorithms/lib/fmf_party/noisy_sum_codec.h"
#include "common/algorithms/lib/fmf_party/party_plan.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/hfl_sgdmf.pb.h"

namespace fedmf::algorithms::hfl_sgdmf {

inline constexpr absl::string_view kAlgorithmName = "hfl-sgdmf";

// InvalidArgument naming the first bad field (a config may come from the network), including a
// mode the runtime does not run (local-only) with the reason.
absl::Status ValidateRunConfig(const v1::HflSgdmfConfig& config);

// The in-process settings of the same run (per user, embedding clipping). Requires a valid config.
HflConfig ToHflConfig(const v1::HflSgdmfConfig& config);

// Rounds of the run: SyncCount syncs and the final stage.
int64_t TotalRounds(const v1::HflSgdmfConfig& config);
bool IsFinalRound(const v1::HflSgdmfConfig& config, int64_t round);
// The final round's upload (lib/fmf_party/party_error.h): the party's test squared error before and
// after fine-tuning, its test ratings, then its training squared error after fine-tuning and its
// training ratings.
inline constexpr uint64_t kFinalReportLength = 5;

// The codec of `round`'s sum: syncs carry sum_k (n_k / n) V^(k) (fmf_party::EmbeddingAverageCodec),
// the final round the error sums and rating counts (fmf_party::ErrorSumCodec). HFL-synSGD's syncs
// carry sum_k G~_k: SynGradientCodec.
absl::StatusOr<fmf_party::Codec> RoundCodec(const v1::HflSgdmfConfig& config, int64_t round);

// HFL-synSGD's sync upload G~_k (lib/fmf_party/noisy_sum_codec.h): a coordinate of the noiseless
// sum over party k's sampled users is at most 2 R^{3/2} per user who rated the item, so at most 2
// R^{3/2} n; the noise's stddev is z g sqrt(theta) (fmf_sgd StepSensitivity).
absl::StatusOr<fmf_party::NoisySumCodec> SynGradientCodec(const v1::HflSgdmfConfig& config);

// The shape of `round`'s plan and sum (lib/fmf_party/party_plan.h); its codec's errors.
absl::StatusOr<fmf_party::RoundShape> RoundShapeOf(const v1::HflSgdmfConfig& config, int64_t round);

// The plan of `round` (in [0, TotalRounds], the last one carrying the trained V after the run)
// without its payload: algorithm, round, phase 0, length, bits, client_bits, combination and
// min = max contributors = s (every sum holds every party: V is their weighted average).
absl::StatusOr<v1::RoundPlan> PlanShape(const v1::HflSgdmfConfig& config, int64_t round);

// OK iff `plan` has exactly PlanShape's fields (everything but the algorithm and the payload);
// InvalidArgument naming the first field that differs.
absl::Status CheckPlanShape(const v1::HflSgdmfConfig& config, const v1::RoundPlan& plan);

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_RUN_CONFIG_H_
