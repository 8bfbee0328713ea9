// DP-ALS's configuration (fedmf.v1.DpAlsConfig) and the layout of the statistics every user sends
// (docs/algorithms.md, "DP-ALS"). With K = k (k + 1) / 2 the upper triangle of a k x k matrix and
// g = K, 1 or 0 the per-item Gram coordinates of item_gram full, count or none, the vector has
// D = K + m (g + k) coordinates:
//   [0, K)                      w_A upper(u u^T)                    (every user: A = sum u u^T)
//   K + j (g + k) + [0, g)      full: w_G upper(u u^T); count: w_c   for each item j the user
//   K + j (g + k) + g + [0, k)  w_b clamp(r_j, 0, R) u                 contributes
// u is the user's factor L2-clipped to U; a user contributes at most C items. The weights
//   full:   w_A = w_G = sqrt(s / ((C + 1) U^4))
//   count:  w_A = sqrt(s / 2) / U^2,  w_c = sqrt(s / (2 C))
//   none:   w_A = sqrt(s) / U^2
//   all:    w_b = sqrt((1 - s) / (C R^2 U^2))
// bound the vector's squared L2 norm by s + (1 - s) = 1 (||upper(u u^T)|| <= ||u||^2 <= U^2,
// ||r u|| <= R U), whatever the user's data: one user's contribution has L2 norm <= 1, and s (the
// Gram share) splits that budget between the Gram and the linear statistics. With scale_to_cap, a
// user contributing c < C items multiplies its item blocks by sqrt(C / c): the same bound, reached
// by every user (a user of few items weighs more). Every coordinate is at most CoordinateBound.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_CONFIG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/scorer.h"
#include "common/dp/dp_conversion.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

inline constexpr absl::string_view kAlgorithmName = "dp-als";

// InvalidArgument naming the field and its value: m >= 1, n >= 1, k >= 1, lambda > 0, mu > 0,
// kappa >= 0, T >= 1, C >= 1, U > 0, R > 0, s in (0, 1), linear_shrinkage >= 0, init_scale > 0,
// a known mechanism; with
// noise, epsilon > 0 and delta in (0, 1); fixed_point_bits in [1, 52] for none and gaussian;
// ddg_bits in [8, 61] and secure aggregation for ddg; a known item_gram;
// a valid rating scale; D below 2^31 (the vector is one message).
absl::Status ValidateConfig(const v1::DpAlsConfig& config);

bool Noisy(const v1::DpAlsConfig& config);
// The whole-run user-level (epsilon, delta) budget.
dp::PrivacyBudget Budget(const v1::DpAlsConfig& config);
RatingScale Scale(const v1::DpAlsConfig& config);

// K = k (k + 1) / 2.
int64_t TriangleSize(int rank);
// g: K (full), 1 (count) or 0 (none).
int64_t ItemGramSize(const v1::DpAlsConfig& config);
// D = K + m (g + k).
int64_t StatisticsLength(const v1::DpAlsConfig& config);
// The first coordinate of item j's block, K + j (g + k).
int64_t ItemOffset(const v1::DpAlsConfig& config, int32_t item);

struct Weights {
  double global = 0;     // w_A
  double item_gram = 0;  // w_G (full), w_c (count), 0 (none)
  double linear = 0;     // w_b
};
Weights StatisticWeights(const v1::DpAlsConfig& config);
// max(w_A U^2, f w_G U^2 or f w_c, f w_b R U), f = sqrt(C) with scale_to_cap (one item), else
// 1: no coordinate of a user's vector exceeds it.
double CoordinateBound(const v1::DpAlsConfig& config);

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_CONFIG_H_
