// HFL-SGDMF's settings (the FMF privacy paper, Li et al., VLDB 2022, Sec. 5): s parties with
// disjoint users and every item; stage 1 pre-trains each party's U locally without noise, stage 2
// runs T syncs of T' noisy V-only DP-SGD steps per party and averages V^(k) with weights n_k / n,
// stage 3 fine-tunes (U, V) locally without noise (never published). The paper's comparison
// points are modes: train-both (stage 2 also moves U, without noise, before each noisy V step;
// no stage 1), HFL-synSGD (stage 2 sums the parties' noisy V gradients at every step, T T' syncs)
// and local-only (no stage 2: every party trains alone, without noise).
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONFIG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/fmf_sgd/config.h"

namespace fedmf::algorithms::hfl_sgdmf {

enum class Mode { kPretrainUsers, kTrainBoth, kSynSgd, kLocalOnly };

absl::string_view ModeName(Mode mode);  // pretrain-u, train-both, syn-sgd, local-only
absl::StatusOr<Mode> ParseMode(absl::string_view name);

struct HflConfig {
  // The noisy steps' settings: p, R, theta, eta, z, gamma_0 and its schedule (whose horizon is
  // T T'). Per user only: a party pre-trains u_i on all of user i's ratings, so removing one
  // rating moves u_i and with it the user's every V gradient; per-rating privacy is unsound here.
  fmf_sgd::DpSgdMfConfig step;
  Mode mode = Mode::kPretrainUsers;
  int32_t parties = 10;          // s
  int64_t syncs = 100;           // T
  int64_t local_steps = 10;      // T'
  int64_t pretrain_steps = 100;  // stage 1 (full-batch, noiseless U-only steps)
  int64_t finetune_steps = 100;  // stage 3 (full-batch, noiseless (U, V) steps)
};

// InvalidArgument naming the first bad field (per-rating privacy, clipping other than embedding
// clipping, counts below their minimum).
absl::Status ValidateConfig(const HflConfig& config);

// The DP-SGD config of stage 2: steps = T T' noisy steps (the schedule's horizon).
fmf_sgd::DpSgdMfConfig NoisyStageConfig(const HflConfig& config);

// Stage 2's syncs: T (HFL-synSGD: T T', one noisy step each), and each sync's noisy steps per
// party: T' (HFL-synSGD: 1).
int64_t SyncCount(const HflConfig& config);
int64_t StepsPerSync(const HflConfig& config);

// The config of a noiseless local stage of `steps` full-batch steps (eta = 1, z = 0): every user
// takes part, so one step moves an embedding by the expected move of a noisy step at the same
// learning rate (eq. 7 divides by eta n_k).
fmf_sgd::DpSgdMfConfig LocalStageConfig(const HflConfig& config, int64_t steps);

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONFIG_H_
