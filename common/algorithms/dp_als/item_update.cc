#include "common/algorithms/dp_als/item_update.h"

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

absl::StatusOr<mf::FactorMatrix> SolveItemFactors(const v1::DpAlsConfig& config,
                                                  const Eigen::VectorXd& sum) {
  if (sum.size() != StatisticsLength(config) || !sum.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat("dp-als: decoded sum of ", sum.size(),
                                                   " values (expected ", StatisticsLength(config),
                                                   ") or not finite"));
  }
  const int k = config.rank();
  const int64_t tri = TriangleSize(k);
  const Weights w = StatisticWeights(config);
  const double kappa = config.kappa();
  const Eigen::MatrixXd all = FromUpperTriangle(sum.head(tri), k) / w.gram;
  mf::FactorMatrix v(config.num_items(), k);
  for (int32_t j = 0; j < config.num_items(); ++j) {
    const int64_t offset = ItemOffset(config, j);
    Eigen::MatrixXd lhs = all + (kappa / w.gram) * FromUpperTriangle(sum.segment(offset, tri), k);
    if (Noisy(config)) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(lhs);
      lhs = eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0).asDiagonal() *
            eigen.eigenvectors().transpose();
    }
    lhs.diagonal().array() += config.mu();
    const Eigen::VectorXd rhs = ((1 + kappa) / w.linear) * sum.segment(offset + tri, k);
    v.row(j) = lhs.llt().solve(rhs).transpose();
  }
  if (!v.allFinite()) return absl::InternalError("dp-als: the item solve is not finite");
  return v;
}

}  // namespace fedmf::algorithms::dp_als
