#include "common/algorithms/dp_popularity/dp_popularity.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/pbm_calibration.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view requirement) {
  return absl::InvalidArgumentError(
      absl::StrCat("dp-popularity config: ", field, "=", value, " ", requirement));
}

}  // namespace

absl::Status ValidateConfig(const v1::DpPopularityConfig& c) {
  if (c.num_items() < 1) return Bad("num_items", c.num_items(), "must be >= 1");
  if (c.num_users() < 1)
    return Bad("num_users", static_cast<double>(c.num_users()), "must be >= 1");
  if (c.cohort_size() < 1 || c.cohort_size() > c.num_users()) {
    return Bad("cohort_size", static_cast<double>(c.cohort_size()),
               absl::StrCat("must be in [1, num_users=", c.num_users(), "]"));
  }
  if (c.min_contributors() < 1 || c.min_contributors() > c.cohort_size()) {
    return Bad("min_contributors", static_cast<double>(c.min_contributors()),
               absl::StrCat("must be in [1, cohort_size=", c.cohort_size(), "]"));
  }
  if (c.max_items() < 0 || c.max_items() > c.num_items()) {
    return Bad("max_items", c.max_items(),
               absl::StrCat("must be in [0, num_items=", c.num_items(), "] (0: no cap)"));
  }
  if (!c.noise()) return absl::OkStatus();
  if (c.max_items() < 1) return Bad("max_items", c.max_items(), "must be >= 1 with noise");
  if (!(std::isfinite(c.epsilon()) && c.epsilon() > 0)) {
    return Bad("epsilon", c.epsilon(), "must be > 0");
  }
  if (!(c.delta() >= 0 && c.delta() < 1)) return Bad("delta", c.delta(), "must be in [0, 1)");
  // gamma sqrt(c) + sqrt(m) < 2^31 is the mechanism's own limit; this keeps gamma c exact.
  if (c.scale() < 1 || c.scale() > (int64_t{1} << 20)) {
    return Bad("scale", static_cast<double>(c.scale()), "must be in [1, 2^20]");
  }
  if (!(c.wrap_probability() > 0 && c.wrap_probability() < 1)) {
    return Bad("wrap_probability", c.wrap_probability(), "must be in (0, 1)");
  }
  if (!(std::isfinite(c.noise_std()) && c.noise_std() >= 0)) {
    return Bad("noise_std", c.noise_std(), "must be >= 0 (0: not yet calibrated)");
  }
  return absl::OkStatus();
}

dp::PrivacyBudget Budget(const v1::DpPopularityConfig& config) {
  return dp::PrivacyBudget::FromEpsilonDelta(config.epsilon(), config.delta());
}

dp::DdgRdpParams Release(const v1::DpPopularityConfig& config, double noise_std) {
  const double gamma = static_cast<double>(config.scale());
  const double c = config.max_items();
  const double total_grid = gamma * noise_std;
  return {.l2_sensitivity = gamma * std::sqrt(2 * c),
          .l1_sensitivity = 2 * gamma * c,
          .per_client_variance =
              total_grid * total_grid / static_cast<double>(config.min_contributors()),
          .n_min = config.min_contributors(),
          .dim = config.num_items()};
}

absl::StatusOr<double> CalibrateNoise(const v1::DpPopularityConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (!config.noise()) return absl::InvalidArgumentError("dp-popularity: no noise to calibrate");
  const dp::DdgRdpParams release = Release(config, 1);
  absl::StatusOr<double> total_grid =
      dp::CalibrateDdgNoise(Budget(config), release.l2_sensitivity, release.l1_sensitivity,
                            release.n_min, release.dim, /*steps=*/1, dp::DefaultOrders());
  if (!total_grid.ok()) return total_grid.status();
  return *total_grid / static_cast<double>(config.scale());
}

absl::StatusOr<dp::DistributedDiscreteGaussian> MakeMechanism(
    const v1::DpPopularityConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (!config.noise() || config.noise_std() <= 0) {
    return absl::InvalidArgumentError("dp-popularity: the mechanism needs a calibrated noise");
  }
  // Inputs are indicators and gamma an integer: gamma x is on the grid, rounding is the
  // identity, and every coordinate stays in [0, gamma] whatever the clip does, so no conditioning
  // is needed (beta 0).
  return dp::DistributedDiscreteGaussian::Create(
      {.dim = config.num_items(),
       .clip_norm = std::sqrt(static_cast<double>(config.max_items())),
       .linf_bound = 1,
       .noise_std = config.noise_std(),
       .min_clients = config.min_contributors(),
       .max_clients = config.cohort_size(),
       .scale = static_cast<double>(config.scale()),
       .rounding_beta = 0,
       .wrap_probability = config.wrap_probability()});
}

absl::StatusOr<int> SumBits(const v1::DpPopularityConfig& config) {
  if (!config.noise()) {
    if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
    return dp::BitsFor(config.cohort_size());
  }
  absl::StatusOr<dp::DistributedDiscreteGaussian> mechanism = MakeMechanism(config);
  if (!mechanism.ok()) return mechanism.status();
  return mechanism->modulus_bits();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundRelease(const v1::DpPopularityConfig& config,
                                                            int64_t participants,
                                                            const std::vector<double>& orders) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (!config.noise()) return std::nullopt;
  const dp::DdgRdpParams release = Release(config, config.noise_std());
  absl::StatusOr<dp::RdpCurve> curve = dp::DdgCurve(release, 1, orders);
  if (!curve.ok()) return curve.status();
  dp::LedgerEntry entry;
  entry.round = 0;
  entry.mechanism = "ddg";
  entry.params = {{"noise_std", config.noise_std()},
                  {"scale", static_cast<double>(config.scale())},
                  {"max_items", static_cast<double>(config.max_items())},
                  {"l2_sensitivity", release.l2_sensitivity},
                  {"dimension", static_cast<double>(release.dim)}};
  entry.participants = participants;
  entry.n_min = config.min_contributors();
  entry.unit = dp::PrivacyUnit::kUser;  // a user's whole indicator vector may change
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

}  // namespace fedmf::algorithms::dp_popularity
