#include "common/dp/gaussian_projection.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/hashing.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {
namespace {

constexpr uint64_t kTagRademacherProjection = 0x7261646d2d706869ULL;  // "radm-phi"

}  // namespace

absl::StatusOr<GaussianProjection> GaussianProjection::Create(int64_t input_dim, int64_t output_dim,
                                                              uint64_t seed,
                                                              ProjectionEntries entries) {
  if (output_dim < 1 || output_dim > input_dim || input_dim > (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat("GaussianProjection: need 1 <= q=", output_dim,
                                                   " <= m=", input_dim, " < 2^31"));
  }
  const double entry_scale = 1 / std::sqrt(static_cast<double>(output_dim));
  Eigen::MatrixXd phi(output_dim, input_dim);
  double* data = phi.data();  // column-major
  const int64_t size = phi.size();
  if (entries == ProjectionEntries::kGaussian) {
    Rng rng(seed);
    for (int64_t i = 0; i < size; i += 2) {
      const auto [a, b] = StandardNormalPair(rng);
      data[i] = a * entry_scale;
      if (i + 1 < size) data[i + 1] = b * entry_scale;
    }
  } else {
    const uint64_t key = DeriveStreamKey(seed, kTagRademacherProjection);
    for (int64_t i = 0; i < size; ++i) {
      data[i] = SignFromBits(SplitMix64At(key, static_cast<uint64_t>(i))) * entry_scale;
    }
  }
  return GaussianProjection(std::move(phi));
}

absl::StatusOr<Eigen::MatrixXd> GaussianProjection::Apply(
    const Eigen::Ref<const Eigen::MatrixXd>& x) const {
  if (x.rows() != input_dim()) {
    return absl::InvalidArgumentError(absl::StrCat("GaussianProjection::Apply: input has ",
                                                   x.rows(), " rows, expected m=", input_dim()));
  }
  return Eigen::MatrixXd(phi_ * x);
}

absl::StatusOr<ProjectionRecovery> ProjectionRecovery::Create(
    std::shared_ptr<const GaussianProjection> phi) {
  if (phi == nullptr) return absl::InvalidArgumentError("ProjectionRecovery: no projection");
  const Eigen::MatrixXd& m = phi->matrix();
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(m.rows(), m.rows());
  gram.selfadjointView<Eigen::Lower>().rankUpdate(m);  // half the work of m m^T
  Eigen::LLT<Eigen::MatrixXd> llt(gram);
  if (llt.info() != Eigen::Success) {
    return absl::FailedPreconditionError(
        absl::StrCat("GaussianProjection: Phi Phi^T is singular (q=", m.rows(), ", m=", m.cols(),
                     "); use another seed or a smaller q"));
  }
  return ProjectionRecovery(std::move(phi), std::move(llt));
}

absl::StatusOr<Eigen::MatrixXd> ProjectionRecovery::Recover(
    const Eigen::Ref<const Eigen::MatrixXd>& b) const {
  if (b.rows() != phi_->output_dim()) {
    return absl::InvalidArgumentError(absl::StrCat("ProjectionRecovery::Recover: input has ",
                                                   b.rows(),
                                                   " rows, expected q=", phi_->output_dim()));
  }
  return Eigen::MatrixXd(phi_->matrix().transpose() * gram_.solve(b));
}

Eigen::MatrixXd ProjectionRecovery::PseudoInverse() const {
  const int64_t q = phi_->output_dim();
  return phi_->matrix().transpose() * gram_.solve(Eigen::MatrixXd::Identity(q, q));
}

}  // namespace fedmf::dp
