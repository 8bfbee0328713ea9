// DP popularity: a one-round baseline that counts, for every item, the users who rated it, through
// secure aggregation with distributed discrete Gaussian noise (Kairouz, Liu, Steinke 2021), and
// ranks every user's unseen items by the noisy count (docs/algorithms.md, "DP popularity").
//   user:   x in {0, 1}^m, 1 at up to c = max_items of its rated items (sampled uniformly without
//           replacement when it rated more), through dp::DistributedDiscreteGaussian with an
//           integer scale gamma (gamma x is on the grid, so rounding changes nothing): gamma x
//           plus N_Z(0, v) per item, v = (gamma sigma)^2 / n_min, mod 2^b.
//   server: counts = centered sum / gamma.
// Sensitivity (one user replaced, grid units): the two vectors have at most c non-zeros each, all
// in [0, gamma], so they differ by at most gamma sqrt(2c) in L2 and 2 gamma c in L1. The ledger
// records KLS's bound for that sum (dp/rdp_ddg.h), unit one user; sigma is the smallest noise
// that fits the run's budget in that one release. Without noise (`noise` false) it is the exact
// count of every rating (c = 0: no cap), with no ledger entry: the non-private popularity.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_DP_POPULARITY_H_
#define FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_DP_POPULARITY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rdp_ddg.h"
#include "fedmf/v1/dp_popularity.pb.h"

namespace fedmf::algorithms::dp_popularity {

inline constexpr absl::string_view kAlgorithmName = "dp-popularity";

// InvalidArgument naming the first bad field (the config may come from the network). A noisy
// config needs max_items >= 1 (the sensitivity), a budget, scale >= 1 and noise_std > 0.
absl::Status ValidateConfig(const v1::DpPopularityConfig& config);

// The run's budget: (epsilon, delta)-DP per user, or RDP epsilon at order 2 when delta is 0.
dp::PrivacyBudget Budget(const v1::DpPopularityConfig& config);

// The release's parameters for KLS's bound with total noise std `noise_std` (counts).
dp::DdgRdpParams Release(const v1::DpPopularityConfig& config, double noise_std);

// sigma (counts) for config's budget, scale and cap; `config.noise_std` is ignored.
absl::StatusOr<double> CalibrateNoise(const v1::DpPopularityConfig& config);

// The noisy config's mechanism over m items.
absl::StatusOr<dp::DistributedDiscreteGaussian> MakeMechanism(const v1::DpPopularityConfig& config);

// Bits b of the sum: the mechanism's, or those of a count of at most cohort_size without noise.
absl::StatusOr<int> SumBits(const v1::DpPopularityConfig& config);

// The ledger entry of the round ("ddg", unit user), with `participants` users in the sum;
// nullopt without noise.
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundRelease(const v1::DpPopularityConfig& config,
                                                            int64_t participants,
                                                            const std::vector<double>& orders);

}  // namespace fedmf::algorithms::dp_popularity

#endif  // FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_DP_POPULARITY_H_
