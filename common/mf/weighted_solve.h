// Closed-form row update of the confidence-weighted objective of DPMF-RP eq. 4 (the paper's eq. 5):
// with the other side's factors F fixed, confidence 1 + kappa on the row's observed entries and 1
// on all others (whose target is 0), the row's factor is
//   x = (F^T F + kappa * sum_{j in O} f_j f_j^T + reg * I)^{-1} (1 + kappa) * sum_{j in O} r_j f_j.
// Shared by the centralized baseline (both sides) and the federated client (user side).
#ifndef FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_
#define FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::mf {

// F^T F (k x k) by a symmetric rank update: half the general product's flops, and not Eigen's
// OpenMP GEMM, whose threads busy-wait on each other: for a k x k result over m rows that made a
// mobile participant's restore (45,000 items) four times slower on a loaded 2-core machine.
Eigen::MatrixXd FactorGram(const FactorMatrix& factors);

// `gram` must be F^T F (k x k), precomputed once per sweep: it carries the unobserved entries'
// weight.
Eigen::VectorXd SolveWeightedRow(const Eigen::MatrixXd& gram, const FactorMatrix& other_factors,
                                 const data::RatingRow& row, double kappa, double reg);

// A user's factor by the closed form above (eq. 5) from their own ratings, which come from
// outside: InvalidArgument if an item index is outside [0, m), a rating is not finite, `gram`
// is not k x k or the factor is not finite. `item_factors` is V (m x k), `gram` = V^T V.
absl::StatusOr<Eigen::VectorXd> SolveUserFactor(const FactorMatrix& item_factors,
                                                const Eigen::MatrixXd& gram,
                                                const data::RatingRow& ratings, double lambda,
                                                double kappa);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_
