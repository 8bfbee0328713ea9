// Non-private gradient descent on the objective of ldp-gd (user_step.h: eqs. (2)-(6) with M
// replaced by n), every user in every iteration, from the same public V_0 and u_i^0 and with the
// same step schedule: the paper's "Non-Private GD" baseline, and the V of ||V* - V||_max.
#ifndef FEDMF_COMMON_ALGORITHMS_LDP_GD_CENTRAL_GD_H_
#define FEDMF_COMMON_ALGORITHMS_LDP_GD_CENTRAL_GD_H_

#include <functional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "fedmf/v1/ldp_gd.pb.h"

namespace fedmf::algorithms::ldp_gd {

struct CentralGdModel {
  Eigen::MatrixXd item_factors;  // V after k iterations (m x d)
  Eigen::MatrixXd user_factors;  // each user's u_i as of their last gradient (n x d)
};

// k = config.rounds() iterations; `config` must describe `train` (users and items) and is used
// as given (set correction false for the paper's non-private GD). `on_iteration(t, V)` after each.
absl::StatusOr<CentralGdModel> TrainCentralGd(
    const data::RatingsDataset& train, const v1::LdpGdConfig& config,
    const std::function<void(int64_t, const Eigen::MatrixXd&)>& on_iteration = {});

}  // namespace fedmf::algorithms::ldp_gd

#endif  // FEDMF_COMMON_ALGORITHMS_LDP_GD_CENTRAL_GD_H_
