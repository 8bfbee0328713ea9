#include "common/dp/laplace.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"
#include "common/util/positive_finite.h"

namespace fedmf::dp {

namespace {

absl::Status CheckShareArgs(const char* name, int64_t dim, double b, int64_t clients) {
  if (dim < 0 || !IsPositiveFinite(b) || clients < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": need dim >= 0, b > 0, clients >= 1; got ", dim, ", ", b, ", ", clients));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> LaplaceMechanism(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 const LaplaceParams& params, Rng& rng) {
  if (!IsPositiveFinite(params.l1_sensitivity) || !IsPositiveFinite(params.epsilon)) {
    return absl::InvalidArgumentError(absl::StrCat("LaplaceMechanism: sensitivity ",
                                                   params.l1_sensitivity, " and epsilon ",
                                                   params.epsilon, " must be > 0"));
  }
  const double b = params.scale();
  Eigen::VectorXd out = x;
  for (Eigen::Index j = 0; j < out.size(); ++j) out[j] += Laplace(rng, b);
  return out;
}

absl::StatusOr<Eigen::VectorXd> SampleSharedExponential(int64_t dim, Rng& rng) {
  if (dim < 0) return absl::InvalidArgumentError("SampleSharedExponential: negative dim");
  Eigen::VectorXd h(dim);
  for (int64_t j = 0; j < dim; ++j) h[j] = Exponential(rng);
  return h;
}

absl::StatusOr<Eigen::VectorXd> ScaleMixtureLaplaceShare(
    const Eigen::Ref<const Eigen::VectorXd>& shared_exponential, double b, int64_t clients,
    Rng& rng) {
  const int64_t dim = shared_exponential.size();
  if (absl::Status s = CheckShareArgs("ScaleMixtureLaplaceShare", dim, b, clients); !s.ok()) {
    return s;
  }
  if (!shared_exponential.allFinite() || (dim > 0 && shared_exponential.minCoeff() < 0)) {
    return absl::InvalidArgumentError("ScaleMixtureLaplaceShare: h must be finite and >= 0");
  }
  const double c_std = 1 / std::sqrt(static_cast<double>(clients));
  Eigen::VectorXd share(dim);
  for (int64_t j = 0; j < dim; ++j) {
    share[j] = b * std::sqrt(2 * shared_exponential[j]) * c_std * StandardNormal(rng);
  }
  return share;
}

absl::StatusOr<Eigen::VectorXd> GammaDifferenceLaplaceShare(int64_t dim, double b,
                                                            int64_t min_clients, Rng& rng) {
  return SummedGammaDifferenceLaplaceShares(dim, b, min_clients, 1, rng);
}

absl::StatusOr<Eigen::VectorXd> SummedGammaDifferenceLaplaceShares(int64_t dim, double b,
                                                                   int64_t min_clients,
                                                                   int64_t clients, Rng& rng) {
  if (absl::Status s = CheckShareArgs("GammaDifferenceLaplaceShare", dim, b, min_clients);
      !s.ok()) {
    return s;
  }
  if (clients < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("SummedGammaDifferenceLaplaceShares: need clients >= 1; got ", clients));
  }
  const double shape = static_cast<double>(clients) / static_cast<double>(min_clients);
  Eigen::VectorXd sum(dim);
  for (int64_t j = 0; j < dim; ++j) sum[j] = b * (Gamma(rng, shape) - Gamma(rng, shape));
  return sum;
}

}  // namespace fedmf::dp
