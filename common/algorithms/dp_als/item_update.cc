#include "common/algorithms/dp_als/item_update.h"

#include <algorithm>

#include "Eigen/Cholesky"
#include "Eigen/Eigenvalues"
#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"

namespace fedmf::algorithms::dp_als {

Eigen::MatrixXd FromUpperTriangle(const Eigen::Ref<const Eigen::VectorXd>& values, int rank) {
  Eigen::MatrixXd m(rank, rank);
  Eigen::Index next = 0;
  for (int a = 0; a < rank; ++a) {
    for (int b = a; b < rank; ++b) m(a, b) = m(b, a) = values[next++];
  }
  return m;
}

namespace {

// M with its negative eigenvalues set to 0.
Eigen::MatrixXd PositivePart(const Eigen::MatrixXd& m) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(m);
  return eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0).asDiagonal() *
         eigen.eigenvectors().transpose();
}

}  // namespace

absl::StatusOr<mf::FactorMatrix> SolveItemFactors(const v1::DpAlsConfig& config,
                                                  const v1::DpAlsNoise& noise,
                                                  const Eigen::VectorXd& sum) {
  if (sum.size() != StatisticsLength(config) || !sum.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat("dp-als: decoded sum of ", sum.size(),
                                                   " values (expected ", StatisticsLength(config),
                                                   ") or not finite"));
  }
  const int k = config.rank();
  const int64_t tri = TriangleSize(k);
  const int64_t item_gram = ItemGramSize(config);
  const bool full = config.item_gram() == v1::DpAlsConfig::ITEM_GRAM_FULL;
  const Weights w = StatisticWeights(config);
  const double kappa = config.kappa();
  // t k sigma_b^2: the expected squared norm of b_j's noise, times t (0 without noise).
  const double linear_noise = noise.noise_std() / w.linear;
  const double shrink =
      Noisy(config) ? config.linear_shrinkage() * k * linear_noise * linear_noise : 0;
  Eigen::MatrixXd all = FromUpperTriangle(sum.head(tri), k) / w.global;
  // A alone is projected once; with full, each A + kappa G_j.
  if (Noisy(config) && !full) all = PositivePart(all);
  mf::FactorMatrix v(config.num_items(), k);
  for (int32_t j = 0; j < config.num_items(); ++j) {
    const int64_t offset = ItemOffset(config, j);
    Eigen::MatrixXd lhs;
    if (full) {
      lhs = all + (kappa / w.item_gram) * FromUpperTriangle(sum.segment(offset, tri), k);
      if (Noisy(config)) lhs = PositivePart(lhs);
    } else if (item_gram == 1) {
      const double raters = std::max(sum[offset] / w.item_gram, 0.0);
      lhs = all * (1 + kappa * raters / static_cast<double>(config.num_users()));
    } else {
      lhs = all;
    }
    lhs.diagonal().array() += config.mu();
    Eigen::VectorXd b = sum.segment(offset + item_gram, k) / w.linear;
    if (shrink > 0) b *= std::max(0.0, 1 - shrink / std::max(b.squaredNorm(), shrink));
    const Eigen::VectorXd rhs = (1 + kappa) * b;
    v.row(j) = lhs.llt().solve(rhs).transpose();
  }
  if (!v.allFinite()) return absl::InternalError("dp-als: the item solve is not finite");
  return v;
}

}  // namespace fedmf::algorithms::dp_als
