// DP-ALS's privacy (docs/privacy-accounting.md, "DP-ALS"): the run is T releases of the same sum,
// each of every user's weighted statistics (L2 norm <= 1, config.h), whole-run user-level
// (epsilon, delta)-DP under replace-one. Calibrated once, when the run starts:
//   ddg:      dp::CalibrateDdgSums over T identical sums (one scale gamma, one noise multiplier
//             z: every release's total std is z times its rounded replace-one sensitivity, by
//             KLS's bound composed over the T releases), every user a noise party, the largest
//             gamma whose sum fits ddg_bits;
//   gaussian: z = dp::CalibrateGaussianNoiseMultiplier(budget, 1, T) and sigma = z Delta_2 with
//             Delta_2 = 2 (1 + sqrt(D) / 2^f), the replace-one sensitivity of the clipped,
//             stochastically rounded vector (DPMF-RP's Gaussian);
//   none:     no noise, no entry.
// The ledger charges each round's release with what it is (mechanism ddg or secagg-gaussian,
// unit user, n_min the users whose noise it holds). The user's own solve and its factor stay on
// the device: the item factors are post-processing of the releases, and a user's ranking (its
// own factor from the public item factors) is joint DP as in Chien et al.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_PRIVACY_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_PRIVACY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

// Delta_2 of the Gaussian mechanism (above), real units.
double GaussianSensitivity(const v1::DpAlsConfig& config);

// The run's noise (empty for none).
absl::StatusOr<v1::DpAlsNoise> CalibrateNoise(const v1::DpAlsConfig& config);

// The release of round `round` with `participants` users in the sum; nullopt for none.
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundLedgerEntry(const v1::DpAlsConfig& config,
                                                                const v1::DpAlsNoise& noise,
                                                                int64_t round, int64_t participants,
                                                                const std::vector<double>& orders);

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_PRIVACY_H_
