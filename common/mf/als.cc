#include "common/mf/als.h"

#include "Eigen/Cholesky"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/mf/weighted_solve.h"

namespace fedmf::mf {
namespace {

absl::Status ValidateCommon(const data::RatingsDataset& train, int rank, int iterations) {
  if (train.num_ratings() == 0) return absl::InvalidArgumentError("training set has no ratings");
  if (rank < 1) return absl::InvalidArgumentError(absl::StrCat("rank must be >= 1, got ", rank));
  if (iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat("iterations must be >= 1, got ", iterations));
  }
  return absl::OkStatus();
}

// One explicit-ALS half sweep: refits every row of (factors, bias) against the other side, whose
// biases (if any) are removed from the targets. `row_of(e)` gives entity e's ratings.
template <typename RowOf>
void ExplicitHalfSweep(int64_t rows, RowOf row_of, const FactorMatrix& other,
                       const Eigen::VectorXd& other_bias, double global_mean, double lambda,
                       FactorMatrix& factors, Eigen::VectorXd& bias) {
  const bool biased = bias.size() > 0;
  const Eigen::Index k = factors.cols();
  const Eigen::Index dim = k + (biased ? 1 : 0);
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t e = 0; e < rows; ++e) {
    const data::RatingRow row = row_of(e);
    if (row.size() == 0) {
      factors.row(e).setZero();
      if (biased) bias[e] = 0;
      continue;
    }
    Eigen::MatrixXd lhs = Eigen::MatrixXd::Zero(dim, dim);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(dim);
    Eigen::VectorXd x(dim);
    for (int64_t n = 0; n < row.size(); ++n) {
      const int32_t j = row.indices[n];
      double target = row.ratings[n] - global_mean;
      if (biased) {
        target -= other_bias[j];
        x[0] = 1;
        x.tail(k) = other.row(j).transpose();
      } else {
        x = other.row(j).transpose();
      }
      lhs.selfadjointView<Eigen::Lower>().rankUpdate(x);
      rhs.noalias() += target * x;
    }
    lhs.diagonal().array() += lambda * static_cast<double>(row.size());
    const Eigen::VectorXd w = lhs.selfadjointView<Eigen::Lower>().llt().solve(rhs);
    if (biased) {
      bias[e] = w[0];
      factors.row(e) = w.tail(k).transpose();
    } else {
      factors.row(e) = w.transpose();
    }
  }
}

// One CentralMF half sweep: every row by the weighted closed form against the other side.
template <typename RowOf>
void WeightedHalfSweep(int64_t rows, RowOf row_of, const FactorMatrix& other, double kappa,
                       double reg, FactorMatrix& factors) {
  const Eigen::MatrixXd gram = FactorGram(other);
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t e = 0; e < rows; ++e) {
    factors.row(e) = SolveWeightedRow(gram, other, row_of(e), kappa, reg).transpose();
  }
}

}  // namespace

absl::StatusOr<FactorModel> TrainExplicitAls(const data::RatingsDataset& train,
                                             const ExplicitAlsConfig& config,
                                             const IterationCallback& on_iteration) {
  if (absl::Status s = ValidateCommon(train, config.rank, config.iterations); !s.ok()) return s;
  if (!(config.lambda > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("lambda must be > 0, got ", config.lambda));
  }
  FactorModel model;
  model.algorithm = "als";
  model.user_factors =
      RandomFactors(train.num_users(), config.rank, config.init_scale, config.seed);
  model.item_factors =
      RandomFactors(train.num_items(), config.rank, config.init_scale, config.seed + 1);
  if (config.biases) {
    model.global_mean = train.MeanRating();
    model.user_bias = Eigen::VectorXd::Zero(train.num_users());
    model.item_bias = Eigen::VectorXd::Zero(train.num_items());
  }
  const auto user_row = [&](int64_t u) { return train.user(static_cast<int32_t>(u)); };
  const auto item_row = [&](int64_t i) { return train.item(static_cast<int32_t>(i)); };
  for (int it = 1; it <= config.iterations; ++it) {
    ExplicitHalfSweep(train.num_users(), user_row, model.item_factors, model.item_bias,
                      model.global_mean, config.lambda, model.user_factors, model.user_bias);
    ExplicitHalfSweep(train.num_items(), item_row, model.user_factors, model.user_bias,
                      model.global_mean, config.lambda, model.item_factors, model.item_bias);
    if (on_iteration) on_iteration(it, model);
  }
  return model;
}

absl::StatusOr<FactorModel> TrainCentralMf(const data::RatingsDataset& train,
                                           const CentralMfConfig& config,
                                           const IterationCallback& on_iteration) {
  if (absl::Status s = ValidateCommon(train, config.rank, config.iterations); !s.ok()) return s;
  if (!(config.lambda > 0) || !(config.mu > 0) || !(config.kappa >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("need lambda > 0, mu > 0, kappa >= 0; got ",
                                                   config.lambda, ", ", config.mu, ", ",
                                                   config.kappa));
  }
  FactorModel model;
  model.algorithm = "central-mf";
  model.user_factors =
      RandomFactors(train.num_users(), config.rank, config.init_scale, config.seed);
  model.item_factors =
      RandomFactors(train.num_items(), config.rank, config.init_scale, config.seed + 1);
  const auto user_row = [&](int64_t u) { return train.user(static_cast<int32_t>(u)); };
  const auto item_row = [&](int64_t i) { return train.item(static_cast<int32_t>(i)); };
  for (int it = 1; it <= config.iterations; ++it) {
    WeightedHalfSweep(train.num_users(), user_row, model.item_factors, config.kappa, config.lambda,
                      model.user_factors);
    WeightedHalfSweep(train.num_items(), item_row, model.user_factors, config.kappa, config.mu,
                      model.item_factors);
    if (on_iteration) on_iteration(it, model);
  }
  return model;
}

}  // namespace fedmf::mf
