#include "common/dp/clipping.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::dp {
namespace {

// Scales x by the largest factor <= c / norm(x) whose result has norm(result) <= c.
template <typename NormFn>
absl::StatusOr<Eigen::VectorXd> Clip(const Eigen::Ref<const Eigen::VectorXd>& x, double c,
                                     const char* name, NormFn norm) {
  if (!std::isfinite(c) || !(c > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": bound c=", c, " must be finite > 0"));
  }
  if (!x.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": input has a NaN or infinite entry"));
  }
  Eigen::VectorXd out = x;
  if (norm(out) <= c) return out;
  // Norm of x / max|x_i| times max|x_i|: no overflow for huge finite entries.
  const double largest = x.cwiseAbs().maxCoeff();
  double factor = c / (norm(Eigen::VectorXd(x / largest)) * largest);
  for (;;) {
    out = x * factor;
    if (norm(out) <= c) return out;
    factor = std::nextafter(factor, 0.0);
  }
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> ClipL2(const Eigen::Ref<const Eigen::VectorXd>& x, double c) {
  return Clip(x, c, "ClipL2", [](const Eigen::VectorXd& v) { return v.norm(); });
}

absl::StatusOr<Eigen::VectorXd> ClipL1(const Eigen::Ref<const Eigen::VectorXd>& x, double c) {
  return Clip(x, c, "ClipL1", [](const Eigen::VectorXd& v) { return v.lpNorm<1>(); });
}

}  // namespace fedmf::dp
