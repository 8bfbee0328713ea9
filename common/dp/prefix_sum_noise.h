// The noise schedule of the optimal matrix-factorization mechanism for the prefix sums of T
// Gaussian releases when every user takes part in every round: round t (0-based) adds independent
// Gaussian noise of std sigma * PrefixSumNoiseFactor(T, t), proportional to (T - t)^(-1/4), so the
// early rounds, which every later prefix sum carries, get less. Normalized so that
// sum_t factor_t^-2 = T: the T rounds compose (RDP) to exactly the cost of T rounds at sigma, and
// each round is charged as the Gaussian release it is (rdp_gaussian.h). Why no correlation across
// rounds beats it, and what it gains: docs/dp-mechanisms.md, "Noise schedule for prefix sums".
#ifndef FEDMF_COMMON_DP_PREFIX_SUM_NOISE_H_
#define FEDMF_COMMON_DP_PREFIX_SUM_NOISE_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace fedmf::dp {

// (T - t)^(-1/4) * sqrt(sum_{s < T} sqrt(T - s) / T) for t = round, T = rounds. InvalidArgument
// unless 0 <= round < rounds. A deterministic function of its arguments: clients and coordinator
// compute the same value.
absl::StatusOr<double> PrefixSumNoiseFactor(int64_t rounds, int64_t round);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PREFIX_SUM_NOISE_H_
