// Settings of the DP-SGD matrix factorization shared by the FMF privacy paper's algorithms (Li et
// al., VLDB 2022, Sec. 4.1; VFL-SGDMF's local steps and, with one party, central DP-SGD): their
// checks, the L2 sensitivity of one step's summed gradient for one privacy unit (ours and the
// paper's), and the paper's learning-rate schedule.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CONFIG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/privacy_unit.h"

namespace fedmf::algorithms::fmf_sgd {

// How one unit's gradient is bounded: the paper's embedding clipping (every embedding projected
// by Pi after each step, embedding_clip.h), or DP-SGD's gradient clipping to L2 norm C (Abadi et
// al. 2016), per rating or per user as the unit says, with unconstrained embeddings.
enum class ClipMode { kEmbedding, kGradient };

absl::string_view ClipModeName(ClipMode mode);  // "embedding" or "gradient"
absl::StatusOr<ClipMode> ParseClipMode(absl::string_view name);

struct DpSgdMfConfig {
  int rank = 20;          // p
  double rating_max = 5;  // R: every rating must lie in [0, R]
  // Per rating: one rating may be added or removed. Per user: all of one user's ratings, each
  // user trimmed beforehand to at most max_ratings_per_user (data::TrimPerUser).
  dp::PrivacyUnit unit = dp::PrivacyUnit::kRating;
  int max_ratings_per_user = 10;  // theta (per user only)
  ClipMode clip = ClipMode::kEmbedding;
  double gradient_clip = 10;    // C (gradient clipping only)
  double sampling_rate = 0.01;  // eta: every step samples each user with this probability
  double noise_multiplier = 0;  // z: noise N(0, (z Delta)^2) per coordinate; 0 = no noise
  int64_t steps = 1000;         // noisy steps of U and V (T T')
  int64_t item_only_steps = 0;  // noisy steps of V alone at the end (the paper's kappa)
  double learning_rate = 1;     // gamma_0
  // The paper (Sec. 4.3) follows Abadi et al.: linear decay over the first 80% of the steps, then
  // constant; the final rate is gamma_0 times this (Abadi et al. go from 0.1 to 0.052).
  double final_learning_rate_fraction = 0.5;
  double init_prediction = 3;  // every initial <u, v> is about this (public, data-independent)
};

// InvalidArgument naming the first field out of range.
absl::Status ValidateConfig(const DpSgdMfConfig& config);

// L2 sensitivity of one step's summed gradient of (U, V), or of V alone when !update_users, to
// one unit. Embedding clipping, with g = 2 R^{3/2} one rating's gradient bound per embedding:
// per rating sqrt(2) g (U and V) or g (V); per user, theta ratings move one row of U by up to
// theta g and theta distinct rows of V by g each: g sqrt(theta^2 + theta), or g sqrt(theta).
// Gradient clipping: C.
double StepSensitivity(const DpSgdMfConfig& config, bool update_users);

// The paper's (Sec. 4.2, 5.2): per rating as ours, per user theta times the per-rating value.
// A valid bound, looser than ours per user; reported next to it, never used for the noise.
double PaperStepSensitivity(const DpSgdMfConfig& config, bool update_users);

// gamma_t for step t in [0, steps + item_only_steps).
double LearningRate(const DpSgdMfConfig& config, int64_t step);

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CONFIG_H_
