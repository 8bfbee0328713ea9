// Choice of the PBM parameters (theta, q) for a privacy budget, as in DPMF-RP Section 4.3.1 but
// with the numeric RDP of rdp_pbm.h instead of the paper's unspecified constant C_0: with q = 1,
// the largest theta in (0, 1/4] that fits the budget (bisection); if even theta = 1/4 fits, keep
// theta = 1/4 and raise q to the largest value <= max_q that still fits (the paper's eq. 18/21
// reading: q grows only to absorb budget that theta cannot). A round is charged either
// coordinate by coordinate (rdp_pbm.h) or by the L2 shift of the whole vector (rdp_pbm_l2.h).
#ifndef FEDMF_COMMON_DP_PBM_CALIBRATION_H_
#define FEDMF_COMMON_DP_PBM_CALIBRATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_pbm.h"

namespace fedmf::dp {

struct PbmCalibrationRequest {
  PrivacyBudget budget;      // for the whole training run
  int64_t rounds = 1;        // rounds the worst-case client takes part in (composed T times)
  int64_t dimension = 1;     // coordinates per round, p' k after flattening
  int64_t n_min = 1;         // fewest honest clients per secure sum (1 = no secure aggregation)
  int64_t participants = 1;  // clients per round (>= n_min); sets the secure-sum bit width
  int64_t max_q = 16;
  // > 0: every round's vector has L2 norm at most l2_over_clip times the coordinate clip c, and
  // a round costs PbmL2RoundCurve; 0: every coordinate may move over its whole range (eq. 20).
  double l2_over_clip = 0;
  std::vector<double> orders = DefaultOrders();  // the grid for (epsilon, delta) budgets
};

struct PbmCalibration {
  PbmPrivacyParams params;
  int local_bits = 0;   // ceil(log2(q + 1)): one client's value per coordinate
  int secagg_bits = 0;  // ceil(log2(participants * q + 1)): per coordinate on the wire in SecAgg
  double spent_epsilon = 0;  // what the whole run spends, measured the way the budget is
};

absl::StatusOr<PbmCalibration> CalibratePbm(const PbmCalibrationRequest& request);

// Bits needed to hold any integer in [0, max_value].
int BitsFor(int64_t max_value);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PBM_CALIBRATION_H_
