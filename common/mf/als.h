// Centralized trainers, the baselines the federated algorithms are measured against:
//  - TrainExplicitAls: explicit-feedback ALS over the observed ratings only, with global mean and
//    user/item biases and L2 regularization scaled by each row's rating count (ALS-WR,
//    Zhou et al. 2008), minimizing sum_{(u,i) observed} (r - mu - b_u - b_i - p_u.q_i)^2
//    + lambda * n_u (|p_u|^2 + b_u^2) + lambda * n_i (|q_i|^2 + b_i^2).
//  - TrainCentralMf: the confidence-weighted objective of DPMF-RP eq. 4 (the paper's "CentralMF"):
//    c = 1 + kappa on observed ratings, 1 on unobserved (target 0), user rows by eq. 5 with lambda,
//    item rows by the same closed form with mu. No biases.
// Both alternate full sweeps (users then items), parallel over rows with OpenMP.
#ifndef FEDMF_COMMON_MF_ALS_H_
#define FEDMF_COMMON_MF_ALS_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::mf {

struct ExplicitAlsConfig {
  int rank = 10;
  double lambda = 0.1;  // per-rating L2 weight (ALS-WR); also applied to the biases
  int iterations = 15;
  bool biases = true;
  double init_scale = 0.1;  // factors start uniform in [-init_scale, init_scale)
  uint64_t seed = 1;
};

struct CentralMfConfig {
  int rank = 14;         // DPMF-RP Section 6.1.3 (ML100K)
  double lambda = 0.25;  // user regularization
  double mu = 0.9;       // item regularization
  double kappa = 15;     // confidence of observed ratings is 1 + kappa
  int iterations = 15;
  double init_scale = 0.1;
  uint64_t seed = 1;
};

// Called after each full sweep with the 1-based iteration number and the current model.
using IterationCallback = std::function<void(int iteration, const FactorModel& model)>;

absl::StatusOr<FactorModel> TrainExplicitAls(const data::RatingsDataset& train,
                                             const ExplicitAlsConfig& config,
                                             const IterationCallback& on_iteration = {});

absl::StatusOr<FactorModel> TrainCentralMf(const data::RatingsDataset& train,
                                           const CentralMfConfig& config,
                                           const IterationCallback& on_iteration = {});

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_ALS_H_
