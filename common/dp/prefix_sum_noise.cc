#include "common/dp/prefix_sum_noise.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::dp {

absl::StatusOr<double> PrefixSumNoiseFactor(int64_t rounds, int64_t round) {
  if (round < 0 || round >= rounds) {
    return absl::InvalidArgumentError(
        absl::StrCat("prefix-sum noise: round ", round, " is outside [0, ", rounds, ")"));
  }
  // Release t weighs x_t = sqrt(||A e_t||^2) = sqrt(T - t), the number of prefix sums it enters
  // (the best diagonal factorization); its noise std is proportional to x_t^(-1/2).
  double total = 0;
  for (int64_t s = 0; s < rounds; ++s) total += std::sqrt(static_cast<double>(rounds - s));
  const double weight = std::sqrt(static_cast<double>(rounds - round));
  return std::sqrt(total / (static_cast<double>(rounds) * weight));
}

}  // namespace fedmf::dp
