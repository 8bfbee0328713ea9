// Deterministic synthetic ratings in which users rate what suits their taste: the default dataset
// of every binary. The same config (seed included) gives the identical dataset on any machine
// (see PortableRandom). Named shapes (ML-100K, ML-20M, Gowalla, the legacy generator) are in
// synthetic_shapes.h; their calibration against the real datasets is
// docs/results/synthetic-data.md.
//
// Model; every draw from one PortableRandom(seed), in this order:
// 1. Popularity: item weights pop_i = (rank + item_popularity_offset)^-item_popularity_exponent
//    over a seeded random order of items (a Zipf-Mandelbrot law: the offset flattens the head).
//    Activity: user counts
//      c_u = min_ratings_per_user + (mean - min_ratings_per_user) * a_u / mean(a),
//      a_u = v_u - min(v),  v = (rank + user_activity_offset)^-user_activity_exponent over a
//    seeded random order of users (the least active user gets exactly min_ratings_per_user; all
//    get the mean if all v are equal), rounded to the nearest integer and capped at num_items;
//    mean = ratings_per_user (or density * num_items).
// 2. Rating model: b_u ~ N(0, user_bias_std^2), b_i ~ N(0, item_bias_std^2), p_u and q_i of
//    length `rank` with i.i.d. N(0, f^2) entries, f^2 = interaction_std / sqrt(rank), so <p_u, q_i>
//    has variance interaction_std^2.
// 3. Taste (taste_clusters = K > 0): K centroids z_c drawn like p_u; user u joins cluster c(u)
//    uniformly at random, and its factor becomes p_u <- sqrt(1 - s^2) z_c(u) + s p_u (s =
//    taste_spread: 0, every member has its cluster's taste; 1, none). Cluster c exposes item i with
//    weight pop_i * exp(taste_strength * a_ci), a_ci = <z_c, q_i> / (f^2 sqrt(rank)) (unit
//    variance).
// 4. Exposure: user u draws c_u distinct items one after another; each draw comes from the
//    popularity weights with probability popularity_share and otherwise from its cluster's weights,
//    renormalized over the items u has not drawn yet. With K = 0 every draw follows popularity: the
//    generator of fedmf before realistic exposure (shape "legacy"), whose data is identical.
// 5. Ratings: score = mean_score + b_u + b_i + <p_u, q_i> + N(0, noise_std^2), rating = 1 + the
//    number of star_cuts at or below the score (cuts 1.5, 2.5, 3.5, 4.5: clamp(round(score), 1, 5);
//    other cuts give real data's skew, which a rounded Gaussian cannot). Users thus mostly rate
//    what they like, as on real data, and the items a user rates say more about the user than their
//    popularity does. `implicit`: every rating is 1 (check-ins, clicks; no score is drawn).
//
// Ids: user k is "u<k>" and item k is "i<k>" (0-based), and dense index k is exactly that user or
// item: all num_users users and num_items items exist even when an item drew no rating.
// Timestamps are a logical clock: 1, 2, ... in generation order (user by user, each user's items
// in draw order); leave-latest splits work on them.
#ifndef FEDMF_COMMON_DATA_SYNTHETIC_H_
#define FEDMF_COMMON_DATA_SYNTHETIC_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

// The defaults are the "ml-100k" shape (synthetic_shapes.h).
struct SyntheticConfig {
  int32_t num_users = 943;
  int32_t num_items = 1682;
  int32_t rank = 10;
  // Mean ratings per user; replaced by density * num_items when density is set.
  double ratings_per_user = 106;
  std::optional<double> density;
  double item_popularity_exponent = 1.4;
  double item_popularity_offset = 30;
  double user_activity_exponent = 0.5;
  double user_activity_offset = 20;
  int32_t min_ratings_per_user = 20;
  int32_t taste_clusters = 8;
  double taste_strength = 1.7;
  double taste_spread = 0.5;
  double popularity_share = 0.3;
  bool implicit = false;
  double noise_std = 0.9;
  double mean_score = 3.35;  // mean of the score before rounding and clamping
  double user_bias_std = 0.5;
  double item_bias_std = 0.5;
  double interaction_std = 0.7;
  std::array<double, 4> star_cuts = {1.66, 2.49, 3.58, 4.84};  // ascending
  uint64_t seed = 1;
};

// OK, or InvalidArgument naming the first bad field (by its --data key) and its value.
absl::Status ValidateSyntheticConfig(const SyntheticConfig& config);

absl::StatusOr<RatingsDataset> GenerateSynthetic(const SyntheticConfig& config = {});

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_SYNTHETIC_H_
