// FactorModel: the state of a trained matrix-factorization model and its predictions,
// r_hat(u, i) = global_mean + user_bias[u] + item_bias[i] + <U.row(u), V.row(i)>
// (biases are empty vectors, and global_mean 0, for models without them).
#ifndef FEDMF_COMMON_MF_FACTOR_MODEL_H_
#define FEDMF_COMMON_MF_FACTOR_MODEL_H_

#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/types/span.h"

namespace fedmf::mf {

// Factors are stored one row per user / item so a row is contiguous.
using FactorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct FactorModel {
  std::string algorithm;
  FactorMatrix user_factors;  // n x k
  FactorMatrix item_factors;  // m x k
  double global_mean = 0;
  Eigen::VectorXd user_bias;  // n, or empty
  Eigen::VectorXd item_bias;  // m, or empty

  int32_t num_users() const { return static_cast<int32_t>(user_factors.rows()); }
  int32_t num_items() const { return static_cast<int32_t>(item_factors.rows()); }
  int rank() const { return static_cast<int>(item_factors.cols()); }

  double Predict(int32_t user, int32_t item) const;
  // Predictions for every item (scores.size() == num_items()).
  void ScoreUser(int32_t user, absl::Span<double> scores) const;
};

// rows x rank matrix with entries uniform in [-scale, scale), a pure function of `seed` (built from
// std::mt19937_64 bits directly, since std:: distributions differ between standard libraries).
FactorMatrix RandomFactors(int64_t rows, int rank, double scale, uint64_t seed);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_FACTOR_MODEL_H_
