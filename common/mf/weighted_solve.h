// Closed-form row update of the confidence-weighted objective of DPMF-RP eq. 4 (the paper's eq. 5):
// with the other side's factors F fixed, confidence 1 + kappa on the row's observed entries and 1
// on all others (whose target is 0), the row's factor is
//   x = (F^T F + kappa * sum_{j in O} f_j f_j^T + reg * I)^{-1} (1 + kappa) * sum_{j in O} r_j f_j.
// Shared by the centralized baseline (both sides) and the federated client (user side).
#ifndef FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_
#define FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_

#include "Eigen/Core"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::mf {

// `gram` must be F^T F (k x k), precomputed once per sweep: it carries the unobserved entries'
// weight.
Eigen::VectorXd SolveWeightedRow(const Eigen::MatrixXd& gram, const FactorMatrix& other_factors,
                                 const data::RatingRow& row, double kappa, double reg);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_WEIGHTED_SOLVE_H_
