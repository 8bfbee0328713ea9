// The privacy specification of HDPMF's experiments (Table 2 of Hu and Fang): users and items each
// split into conservative, moderate and liberal groups with weights U[w_con, w_mod), U[w_mod, 1)
// and exactly 1. Group sizes are exact (round(f_con n), round(f_mod n), the rest) and assigned by
// a shuffle seeded from spec.seed, so every binary derives the same weights. W_ij = beta_i gamma_j.
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_PRIVACY_SPEC_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_PRIVACY_SPEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {

// The paper's defaults: users 54% U[0.1, 0.5), 37% U[0.5, 1), 9% at 1; items 33/33/34%, same
// ranges.
v1::HdpmfPrivacySpec DefaultPrivacySpec(uint64_t seed);

// InvalidArgument naming the first bad field: fractions in [0, 1] adding up to at most 1, weights
// with 0 < w_con <= w_mod <= 1.
absl::Status ValidatePrivacySpec(const v1::HdpmfPrivacySpec& spec);

// One population's weights (index i: user or item i), of a valid spec.
std::vector<double> UserWeights(const v1::HdpmfPrivacySpec& spec, int64_t num_users);  // beta
std::vector<double> ItemWeights(const v1::HdpmfPrivacySpec& spec, int64_t num_items);  // gamma

// The smallest weight a rating can have under the spec: w_con(users) * w_con(items) when the
// conservative groups are non-empty for `num_users` and `num_items`, else the next group's bound.
double SmallestRatingWeight(const v1::HdpmfPrivacySpec& spec, int64_t num_users, int64_t num_items);

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_PRIVACY_SPEC_H_
