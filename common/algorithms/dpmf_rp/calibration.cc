#include "common/algorithms/dpmf_rp/calibration.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/pbm_calibration.h"
#include "common/dp/rdp_gaussian.h"
#include "common/dp/rdp_pbm.h"

namespace fedmf::algorithms::dpmf_rp {
double GaussianSensitivity(const DpmfRpConfig& config) {
  const double d = static_cast<double>(ProjectedDim(config) * config.rank);
  return 2 * (ContributionClip(config) + std::sqrt(d) / std::ldexp(1.0, config.fixed_point_bits));
}

absl::StatusOr<v1::DpmfRpMechanism> CalibrateMechanism(const DpmfRpConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::DpmfRpMechanism out;
  switch (config.mechanism) {
    case Mechanism::kPbm: {
      absl::StatusOr<dp::PbmCalibration> pbm = dp::CalibratePbm({
          .budget = Budget(config),
          .rounds = config.rounds,
          .dimension = PbmDimension(config),
          .n_min = MinContributors(config),
          .participants = CohortSize(config),
          .max_q = config.max_q,
      });
      if (!pbm.ok()) return pbm.status();
      out.set_pbm_theta(pbm->params.theta);
      out.set_pbm_q(pbm->params.q);
      break;
    }
    case Mechanism::kGaussian: {
      absl::StatusOr<double> z = dp::CalibrateGaussianNoiseMultiplier(
          Budget(config), /*sampling_rate=*/1.0, config.rounds, dp::DefaultOrders());
      if (!z.ok()) return z.status();
      out.set_gaussian_noise_std(*z * GaussianSensitivity(config));
      break;
    }
    case Mechanism::kNone:
      break;
  }
  return out;
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundLedgerEntry(const DpmfRpConfig& config,
                                                                const v1::DpmfRpMechanism& params,
                                                                int64_t round, int64_t participants,
                                                                const std::vector<double>& orders) {
  if (config.mechanism == Mechanism::kNone) return std::nullopt;
  dp::LedgerEntry entry;
  entry.round = round;
  entry.participants = participants;
  entry.n_min = MinContributors(config);
  entry.unit = dp::PrivacyUnit::kUser;  // one user's whole contribution to the round may change
  absl::StatusOr<dp::RdpCurve> curve = absl::InternalError("unset");
  if (config.mechanism == Mechanism::kPbm) {
    const int64_t d = PbmDimension(config);
    entry.mechanism = "pbm";
    entry.params = {{"theta", params.pbm_theta()},
                    {"q", static_cast<double>(params.pbm_q())},
                    {"dimension", static_cast<double>(d)},
                    {"clip", PbmCoordinateClip(config)}};
    curve = dp::PbmRoundCurve(
        {.theta = params.pbm_theta(), .q = params.pbm_q(), .n_min = entry.n_min}, d, orders);
  } else {
    const double sensitivity = GaussianSensitivity(config);
    entry.mechanism = "secagg-gaussian";
    entry.params = {{"noise_std", params.gaussian_noise_std()},
                    {"l2_sensitivity", sensitivity},
                    {"dimension", static_cast<double>(ProjectedDim(config) * config.rank)}};
    curve = dp::SecAggGaussianCurve({.l2_sensitivity = sensitivity,
                                     .noise_stddev = params.gaussian_noise_std(),
                                     .n_min = entry.n_min},
                                    orders);
  }
  if (!curve.ok()) return curve.status();
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

}  // namespace fedmf::algorithms::dpmf_rp
