#include "common/algorithms/dpmf_rp/calibration.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/codec.h"
#include "common/dp/pbm_calibration.h"
#include "common/dp/prefix_sum_noise.h"
#include "common/dp/rdp_ddg.h"
#include "common/dp/rdp_gaussian.h"
#include "common/dp/rdp_pbm.h"
#include "common/dp/rdp_pbm_l2.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

// Scales gamma = 2^j tried by the DDG calibration, largest first.
constexpr int kMaxScaleExponent = 40;
constexpr int kMinScaleExponent = -20;

// KLS for the replace-one change of a sum (dp::ReplaceOneDdgRelease).
dp::DdgRdpParams DdgRelease(const DpmfRpConfig& config, const dp::DistributedDiscreteGaussian& ddg,
                            double total_std_grid) {
  return dp::ReplaceOneDdgRelease(ddg.rounded_l2_bound(), DdgDimension(config),
                                  MinContributors(config), total_std_grid);
}

// (sigma, gamma) for the budget: for each gamma = 2^j, largest first, the smallest noise whose
// T releases fit the budget; the first gamma whose sum fits ddg_bits wins (a larger gamma means
// less rounding: its inflation of Delta_2 costs noise).
absl::StatusOr<v1::DpmfRpMechanism> CalibrateDdg(const DpmfRpConfig& config) {
  const int64_t n_min = MinContributors(config);
  const int64_t d = DdgDimension(config);
  for (int j = kMaxScaleExponent; j >= kMinScaleExponent; --j) {
    const double scale = std::ldexp(1.0, j);
    // Delta_2 does not depend on the noise: any valid sigma gives it.
    absl::StatusOr<dp::DistributedDiscreteGaussian> probe = MakeDdg(config, 1 / scale, scale);
    if (!probe.ok()) continue;  // gamma C + sqrt(D) beyond 2^31
    const dp::DdgRdpParams release = DdgRelease(config, *probe, 1);
    absl::StatusOr<double> total_std =
        dp::CalibrateDdgNoise(Budget(config), release.l2_sensitivity, release.l1_sensitivity, n_min,
                              d, config.rounds, dp::DefaultOrders());
    if (!total_std.ok()) return total_std.status();
    absl::StatusOr<dp::DistributedDiscreteGaussian> ddg =
        MakeDdg(config, *total_std / scale, scale);
    if (ddg.ok() && ddg->modulus_bits() <= config.ddg_bits) {
      v1::DpmfRpMechanism out;
      out.set_ddg_noise_std(*total_std / scale);
      out.set_ddg_scale(scale);
      return out;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("dpmf-rp: no DDG scale in [2^", kMinScaleExponent, ", 2^", kMaxScaleExponent,
                   "] fits the sum in ddg_bits=", config.ddg_bits, " bits"));
}

}  // namespace

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
          .l2_over_clip = config.pbm_accounting == PbmAccounting::kL2 ? PbmL2OverClip(config) : 0,
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
    case Mechanism::kDdg:
      return CalibrateDdg(config);
    case Mechanism::kNone:
      break;
  }
  return out;
}

absl::StatusOr<v1::DpmfRpMechanism> RoundMechanism(const DpmfRpConfig& config,
                                                   const v1::DpmfRpMechanism& calibrated,
                                                   int64_t round) {
  if (round < 0) return absl::InvalidArgumentError(absl::StrCat("dpmf-rp: round ", round, " < 0"));
  if (config.noise_schedule == NoiseSchedule::kConstant) return calibrated;
  absl::StatusOr<double> factor =
      dp::PrefixSumNoiseFactor(config.rounds, std::min(round, config.rounds - 1));
  if (!factor.ok()) return factor.status();
  v1::DpmfRpMechanism out = calibrated;
  out.set_gaussian_noise_std(calibrated.gaussian_noise_std() * *factor);
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
    const dp::PbmPrivacyParams pbm = {
        .theta = params.pbm_theta(), .q = params.pbm_q(), .n_min = entry.n_min};
    if (config.pbm_accounting == PbmAccounting::kL2) {
      entry.params.emplace_back("l2_over_clip", PbmL2OverClip(config));
      curve = dp::PbmL2RoundCurve(pbm, d, PbmL2OverClip(config), orders);
    } else {
      curve = dp::PbmRoundCurve(pbm, d, orders);
    }
  } else if (config.mechanism == Mechanism::kDdg) {
    absl::StatusOr<dp::DistributedDiscreteGaussian> ddg =
        MakeDdg(config, params.ddg_noise_std(), params.ddg_scale());
    if (!ddg.ok()) return ddg.status();
    // The calibrated variance, not the sampler's (rounded up to a rational, so never smaller).
    const dp::DdgRdpParams release =
        DdgRelease(config, *ddg, params.ddg_noise_std() * params.ddg_scale());
    entry.mechanism = "ddg";
    entry.params = {{"noise_std", params.ddg_noise_std()},
                    {"scale", params.ddg_scale()},
                    {"l2_sensitivity", release.l2_sensitivity},
                    {"dimension", static_cast<double>(release.dim)},
                    {"bits", static_cast<double>(ddg->modulus_bits())}};
    curve = dp::DdgCurve(release, 1, orders);
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
