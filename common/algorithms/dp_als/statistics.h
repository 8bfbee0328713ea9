// One user's contribution to DP-ALS's item update before privatization (config.h gives the
// layout): the factor clipped to U, at most C of the user's items (all when it has at most C,
// else C drawn uniformly without replacement from the user's own randomness), and the weighted
// statistics of those items as a sparse real vector of L2 norm <= 1 for any input (ratings are
// clamped to [0, R], a non-finite rating or factor is refused).
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_STATISTICS_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_STATISTICS_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

// u scaled down to norm U when longer.
Eigen::VectorXd ClipFactor(const Eigen::VectorXd& u, double bound);

// Positions in `ratings` of the items the user contributes, ascending: every one when at most
// `cap`, else `cap` of them uniformly at random.
std::vector<int64_t> CappedPositions(int64_t rated, int32_t cap, dp::Rng& rng);

// The user's weighted statistics: strictly increasing coordinates below D and their values.
struct SparseStatistics {
  std::vector<uint64_t> indices;
  Eigen::VectorXd values;
};

// From the user's (unclipped) factor and its ratings: clip, cap, weight (config.h).
// InvalidArgument for a factor of the wrong size or not finite, an item outside [0, m), a
// non-finite rating, or an item rated twice among those contributed.
absl::StatusOr<SparseStatistics> UserStatistics(const v1::DpAlsConfig& config,
                                                const Eigen::VectorXd& factor,
                                                const data::RatingRow& ratings, dp::Rng& rng);

// The dense D-vector of `stats`.
Eigen::VectorXd Densify(const SparseStatistics& stats, int64_t length);

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_STATISTICS_H_
