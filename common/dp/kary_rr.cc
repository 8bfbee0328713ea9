#include "common/dp/kary_rr.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {

absl::StatusOr<KaryRr> KaryRr::Create(int64_t k, double epsilon) {
  if (k < 2) return absl::InvalidArgumentError(absl::StrCat("k-ary RR: k=", k, ", need >= 2"));
  if (!std::isfinite(epsilon) || epsilon <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("k-ary RR: epsilon=", epsilon, ", need > 0"));
  }
  // p = e^eps / (e^eps + k - 1) and q = 1 / (e^eps + k - 1), written to stay finite for large eps.
  const double others = static_cast<double>(k - 1) * std::exp(-epsilon);
  const double p = 1 / (1 + others);
  const double q = std::exp(-epsilon) / (1 + others);
  return KaryRr(k, epsilon, p, q);
}

absl::StatusOr<int64_t> KaryRr::Randomize(int64_t value, Rng& rng) const {
  if (value < 0 || value >= k_) {
    return absl::InvalidArgumentError(
        absl::StrCat("k-ary RR: value ", value, " outside [0, ", k_, ")"));
  }
  if (Bernoulli(rng, p_)) return value;
  // Uniform over the k - 1 other values.
  const int64_t other = static_cast<int64_t>(UniformInt(rng, static_cast<uint64_t>(k_ - 1)));
  return other < value ? other : other + 1;
}

}  // namespace fedmf::dp
