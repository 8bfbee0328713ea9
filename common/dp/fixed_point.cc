#include "common/dp/fixed_point.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {

int64_t StochasticRound(double y, Rng& rng) {
  const double floor_y = std::floor(y);
  const int64_t base = static_cast<int64_t>(floor_y);
  return base + (Bernoulli(rng, y - floor_y) ? 1 : 0);
}

uint64_t ReduceModPow2(int64_t v, int bits) {
  return static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);  // two's complement
}

int64_t CenteredLift(uint64_t r, int bits) {
  const uint64_t modulus = uint64_t{1} << bits;
  const uint64_t x = r & (modulus - 1);
  return x >= modulus / 2 ? static_cast<int64_t>(x) - static_cast<int64_t>(modulus)
                          : static_cast<int64_t>(x);
}

double TailMultiplier(double eta, int64_t dim) {
  return std::sqrt(2 * std::log(2 * static_cast<double>(dim) / eta));
}

double SumRange(double deterministic_bound, double variance_proxy, double eta, int64_t dim) {
  return std::ceil(deterministic_bound + TailMultiplier(eta, dim) * std::sqrt(variance_proxy));
}

absl::StatusOr<int> ModulusBitsForRange(double range) {
  if (!std::isfinite(range) || range < 0) {
    return absl::InvalidArgumentError(absl::StrCat("ModulusBitsForRange: range ", range));
  }
  for (int bits = 2; bits <= kMaxModulusBits; ++bits) {
    if (std::ldexp(1.0, bits - 1) > 2 * range) return bits;
  }
  return absl::OutOfRangeError(absl::StrCat("ModulusBitsForRange: range ", range,
                                            " needs more than ", kMaxModulusBits, " bits"));
}

absl::StatusOr<Eigen::VectorXd> DecodeCheckedSum(absl::Span<const uint64_t> sum, int bits,
                                                 double range, double scale) {
  Eigen::VectorXd decoded(static_cast<Eigen::Index>(sum.size()));
  const uint64_t modulus = uint64_t{1} << bits;
  for (size_t j = 0; j < sum.size(); ++j) {
    if (sum[j] >= modulus) {
      return absl::InvalidArgumentError(
          absl::StrCat("sum coordinate ", j, " = ", sum[j], " is not reduced mod 2^", bits));
    }
    const int64_t lifted = CenteredLift(sum[j], bits);
    if (std::abs(static_cast<double>(lifted)) > range) {
      return absl::OutOfRangeError(absl::StrCat(
          "sum coordinate ", j, " decodes to ", lifted, ", outside the guaranteed range +/-", range,
          ": the aggregate may have wrapped mod 2^", bits, "; discard this round"));
    }
    decoded[static_cast<Eigen::Index>(j)] = static_cast<double>(lifted) / scale;
  }
  return decoded;
}

}  // namespace fedmf::dp
