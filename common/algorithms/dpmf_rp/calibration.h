// The privacy side of DPMF-RP: choosing the mechanism's parameters for the run's budget once, at
// the start of the run, and describing each round's release for the privacy ledger.
//   pbm:      (theta, q) = dp::CalibratePbm for the budget over T rounds of D coordinates
//             (PbmDimension) with n_min = MinContributors (1 without secure aggregation: the
//             paper's case 2). A round is charged as config.pbm_accounting says: by the L2 shift
//             of the whole vector (kL2, bounded through PbmL2OverClip) or every coordinate over
//             its whole range [-c, c] (kCoordinate; docs/privacy-accounting.md, 4.4 and 4.6).
//   gaussian: noise multiplier z for the budget over T rounds (no amplification: the server
//             knows the sample); sigma = z Delta_2 with the replace-one sensitivity
//             Delta_2 = 2 (C + sqrt(p k) / gamma) of the clipped, stochastically rounded vector.
//             Round t adds sigma times the noise schedule's factor (config.h NoiseSchedule), and
//             its ledger entry is that round's Gaussian: the T rounds still compose to the budget.
//   ddg:      for each scale gamma = 2^j, largest first, the smallest total noise sigma (sum of
//             n_min clients) whose T releases fit the budget by KLS's bound (dp/rdp_ddg.h) with
//             the replace-one sensitivity of the conditionally rounded vector (2 Delta_2 in L2);
//             the first gamma whose sum fits ddg_bits bits is kept.
//   none:     no noise and no parameters (the codec's fixed point needs none).
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_CALIBRATION_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_CALIBRATION_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {

absl::StatusOr<v1::DpmfRpMechanism> CalibrateMechanism(const DpmfRpConfig& config);

// The mechanism of round `round` >= 0: `calibrated` with the Gaussian's noise std scaled by the
// noise schedule's factor. Rounds past T (the plan that carries the final model, which the ledger
// never lets run once T rounds spent the budget) keep round T - 1's factor.
absl::StatusOr<v1::DpmfRpMechanism> RoundMechanism(const DpmfRpConfig& config,
                                                   const v1::DpmfRpMechanism& calibrated,
                                                   int64_t round);

// The ledger entry of one round with `participants` clients in the sum (>= n_min), `params` being
// that round's RoundMechanism; nullopt for mechanism none. Mechanism names: "pbm" (params theta,
// q, dimension, clip, and l2_over_clip when charged by the L2 shift), "secagg-gaussian"
// (noise_std, l2_sensitivity, dimension) and "ddg" (noise_std, scale, l2_sensitivity in grid
// units, dimension, bits); the unit is one user, the guarantee an RDP curve.
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundLedgerEntry(const DpmfRpConfig& config,
                                                                const v1::DpmfRpMechanism& params,
                                                                int64_t round, int64_t participants,
                                                                const std::vector<double>& orders);

// Delta_2 of the Gaussian variant: 2 (C + sqrt(p k) / 2^fixed_point_bits).
double GaussianSensitivity(const DpmfRpConfig& config);

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_CALIBRATION_H_
