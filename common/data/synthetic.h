// Deterministic synthetic ratings shaped like MovieLens 100K: the default dataset of every binary.
// The same config (seed included) gives the identical dataset on any machine (see PortableRandom).
//
// Model. Items get popularity weights w = (rank + 1)^-item_popularity_exponent over a seeded random
// order of items (a Zipf law); users get rating counts
//   c_u = min_ratings_per_user + (mean - min_ratings_per_user) * a_u / mean(a),
//   a_u = v_u - min(v),  v = (rank + 1)^-user_activity_exponent over a seeded random order of users
// (so the least active user gets exactly min_ratings_per_user; all get the mean if all v are
// equal), rounded to the nearest integer and capped at num_items, where mean = ratings_per_user (or
// density * num_items). Each user draws c_u distinct items one after another, each draw with
// probability proportional to the weights of the items not drawn yet (sampling without
// replacement following popularity). Ratings come from a low-rank model plus noise:
//   score = mean_score + b_u + b_i + <p_u, q_i> + noise,   rating = clamp(round(score), 1, 5),
// with b_u ~ N(0, user_bias_std^2), b_i ~ N(0, item_bias_std^2), p_u and q_i of length `rank` with
// i.i.d. N(0, s^2) entries, s^2 = interaction_std / sqrt(rank) so that <p_u, q_i> has variance
// interaction_std^2, and noise ~ N(0, noise_std^2). The defaults give ML-100K's shape (real values
// in brackets): 943 users, 1682 items, ~100k ratings; ratings per user min 20 [20], median ~67
// [64], max ~1400 [737]; most popular tenth of items ~42% of ratings [43%]; rating mean ~3.51
// [3.53], stars 1..5 ~5/15/28/29/24% [6/11/27/34/21%] (a Gaussian cannot copy the real skew).
//
// Ids: user k is "u<k>" and item k is "i<k>" (0-based), and dense index k is exactly that user or
// item: all num_users users and num_items items exist even when an item drew no rating.
// Timestamps are a logical clock: 1, 2, ... in generation order (user by user, each user's items
// in draw order, so a user's popular items tend to come first); leave-latest splits work on them.
#ifndef FEDMF_COMMON_DATA_SYNTHETIC_H_
#define FEDMF_COMMON_DATA_SYNTHETIC_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

struct SyntheticConfig {
  int32_t num_users = 943;
  int32_t num_items = 1682;
  int32_t rank = 10;
  // Mean ratings per user; replaced by density * num_items when density is set.
  double ratings_per_user = 106;
  std::optional<double> density;
  double item_popularity_exponent = 0.9;
  double user_activity_exponent = 0.3;
  int32_t min_ratings_per_user = 20;
  double noise_std = 0.8;
  double mean_score = 3.62;  // mean of the score before rounding and clamping
  double user_bias_std = 0.5;
  double item_bias_std = 0.5;
  double interaction_std = 0.7;
  uint64_t seed = 1;
};

// OK, or InvalidArgument naming the first bad field and its value.
absl::Status ValidateSyntheticConfig(const SyntheticConfig& config);

absl::StatusOr<RatingsDataset> GenerateSynthetic(const SyntheticConfig& config = {});

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_SYNTHETIC_H_
