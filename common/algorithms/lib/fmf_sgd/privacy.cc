#include "common/algorithms/lib/fmf_sgd/privacy.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/rdp_gaussian.h"

namespace fedmf::algorithms::fmf_sgd {

int64_t NoisySteps(const DpSgdMfConfig& config) { return config.steps + config.item_only_steps; }

absl::StatusOr<double> CalibrateNoiseMultiplier(const DpSgdMfConfig& config,
                                                const dp::PrivacyBudget& budget,
                                                std::vector<double> orders) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (budget.unit != config.unit) {
    return absl::InvalidArgumentError(
        absl::StrCat("dp-sgdmf: a budget per ", dp::PrivacyUnitName(budget.unit),
                     " for a run protecting one ", dp::PrivacyUnitName(config.unit)));
  }
  return dp::CalibrateGaussianNoiseMultiplier(budget, config.sampling_rate, NoisySteps(config),
                                              std::move(orders));
}

absl::StatusOr<dp::RdpCurve> StepCurve(const DpSgdMfConfig& config, std::vector<double> orders) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (config.noise_multiplier == 0) {
    return absl::InvalidArgumentError("dp-sgdmf: a step without noise has no privacy guarantee");
  }
  return dp::SubsampledGaussianCurve(config.sampling_rate, config.noise_multiplier, 1,
                                     std::move(orders));
}

absl::StatusOr<dp::LedgerEntry> StepEntry(const DpSgdMfConfig& config, bool update_users,
                                          int64_t step, int64_t sampled,
                                          const dp::RdpCurve& step_curve) {
  const double sensitivity = StepSensitivity(config, update_users);
  dp::LedgerEntry entry;
  entry.round = step;
  entry.mechanism = kStepMechanism;
  entry.params = {{"noise_multiplier", config.noise_multiplier},
                  {"sensitivity", sensitivity},
                  {"noise_stddev", config.noise_multiplier * sensitivity},
                  {"sampling_rate", config.sampling_rate}};
  entry.participants = sampled;
  entry.n_min = 0;
  entry.unit = config.unit;
  entry.rdp = step_curve.values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

double PaperImpliedC1(const DpSgdMfConfig& config, double epsilon, double delta) {
  const double z = config.noise_multiplier;
  const double eta = config.sampling_rate;
  return z * z * epsilon * epsilon /
         (eta * eta * static_cast<double>(NoisySteps(config)) * std::log(1 / delta));
}

}  // namespace fedmf::algorithms::fmf_sgd
