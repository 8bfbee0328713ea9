// Norm clipping that bounds a contribution's sensitivity: x * min(1, c / ||x||). The guarantee is
// on the computed norm: ClipL2(x, c).norm() <= c and ClipL1(x, c).lpNorm<1>() <= c hold exactly in
// floating point (the scale factor is stepped down by ulps until they do), so the bound the
// accountant assumes is never exceeded by rounding.
#ifndef FEDMF_COMMON_DP_CLIPPING_H_
#define FEDMF_COMMON_DP_CLIPPING_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace fedmf::dp {

// c > 0 finite; x must be finite (a NaN or infinite coordinate is an error: it cannot be clipped).
// Matrices can be clipped through Eigen::Map<const Eigen::VectorXd>(m.data(), m.size()).
absl::StatusOr<Eigen::VectorXd> ClipL2(const Eigen::Ref<const Eigen::VectorXd>& x, double c);
absl::StatusOr<Eigen::VectorXd> ClipL1(const Eigen::Ref<const Eigen::VectorXd>& x, double c);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_CLIPPING_H_
