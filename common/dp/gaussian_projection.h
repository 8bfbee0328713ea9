// GaussianProjection: the dense q x m random matrix Phi of the local-DP MF paper (Shin et al.,
// Section 4.3 and Algorithm 2), entries i.i.d. with mean 0 and variance 1/q, generated from a
// public seed; ProjectionRecovery: the recovery of eq. (11), Phi^+ B with
// Phi^+ = Phi^T (Phi Phi^T)^{-1}, q <= m, whose factorization (q^2 m work, the costly part) is
// made once and kept, apart from Phi, which is all a client needs.
// Entries: N(0, 1/q) by the polar method on Rng(seed), column-major (bit-identical for one libm),
// or Rademacher +/-1/sqrt(q) from SplitMix64 (bit-identical everywhere); the paper allows both.
#ifndef FEDMF_COMMON_DP_GAUSSIAN_PROJECTION_H_
#define FEDMF_COMMON_DP_GAUSSIAN_PROJECTION_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace fedmf::dp {

enum class ProjectionEntries { kGaussian, kRademacher };

class GaussianProjection {
 public:
  // 1 <= output_dim q <= input_dim m < 2^31, else InvalidArgument.
  static absl::StatusOr<GaussianProjection> Create(
      int64_t input_dim, int64_t output_dim, uint64_t seed,
      ProjectionEntries entries = ProjectionEntries::kGaussian);

  int64_t input_dim() const { return phi_.cols(); }   // m
  int64_t output_dim() const { return phi_.rows(); }  // q
  const Eigen::MatrixXd& matrix() const { return phi_; }

  // Phi X: m x k -> q x k.
  absl::StatusOr<Eigen::MatrixXd> Apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const;

 private:
  explicit GaussianProjection(Eigen::MatrixXd phi) : phi_(std::move(phi)) {}

  Eigen::MatrixXd phi_;
};

class ProjectionRecovery {
 public:
  // Factorizes Phi Phi^T: FailedPrecondition when it is singular (probability 0 for Gaussian
  // entries; possible for Rademacher entries with q close to m).
  static absl::StatusOr<ProjectionRecovery> Create(std::shared_ptr<const GaussianProjection> phi);

  const GaussianProjection& projection() const { return *phi_; }
  // Phi^+ B: q x k -> m x k, the minimum-norm X with Phi X = B.
  absl::StatusOr<Eigen::MatrixXd> Recover(const Eigen::Ref<const Eigen::MatrixXd>& b) const;
  // Phi^+ itself (m x q), for clients that cache it.
  Eigen::MatrixXd PseudoInverse() const;

 private:
  ProjectionRecovery(std::shared_ptr<const GaussianProjection> phi,
                     Eigen::LLT<Eigen::MatrixXd> gram)
      : phi_(std::move(phi)), gram_(std::move(gram)) {}

  std::shared_ptr<const GaussianProjection> phi_;
  Eigen::LLT<Eigen::MatrixXd> gram_;  // Cholesky factor of Phi Phi^T
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_GAUSSIAN_PROJECTION_H_
