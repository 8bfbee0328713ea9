#include "common/algorithms/hfl_sgdmf/privacy.h"

#include <utility>

#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/dp/rdp_gaussian.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

absl::StatusOr<double> EpsilonOfSteps(const HflConfig& config, int64_t steps, double delta,
                                      const std::vector<double>& orders) {
  absl::StatusOr<dp::RdpCurve> curve = dp::SubsampledGaussianCurve(
      config.step.sampling_rate, config.step.noise_multiplier, steps, orders);
  if (!curve.ok()) return curve.status();
  return dp::SpentEpsilon(*curve, dp::PrivacyBudget::ApproxDp(1, delta, dp::PrivacyUnit::kUser));
}

}  // namespace

int64_t NoisyStepsPerUser(const HflConfig& config) {
  return config.mode == Mode::kLocalOnly ? 0 : config.syncs * config.local_steps;
}

absl::StatusOr<double> CalibrateNoiseMultiplier(const HflConfig& config, double epsilon,
                                                double delta, std::vector<double> orders) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (NoisyStepsPerUser(config) == 0) {
    return absl::InvalidArgumentError("hfl-sgdmf: local-only training adds no noise");
  }
  return dp::CalibrateGaussianNoiseMultiplier(
      dp::PrivacyBudget::ApproxDp(epsilon, delta, dp::PrivacyUnit::kUser),
      config.step.sampling_rate, NoisyStepsPerUser(config), std::move(orders));
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundEntry(const HflConfig& config, int64_t round,
                                                          int64_t parties,
                                                          const std::vector<double>& orders) {
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  if (noisy.noise_multiplier == 0 || round >= SyncCount(config)) return std::nullopt;
  absl::StatusOr<dp::RdpCurve> curve = dp::SubsampledGaussianCurve(
      noisy.sampling_rate, noisy.noise_multiplier, StepsPerSync(config), orders);
  if (!curve.ok()) return curve.status();
  const double sensitivity = fmf_sgd::StepSensitivity(noisy, /*update_users=*/false);
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = fmf_sgd::kStepMechanism;
  entry.params = {{"noise_multiplier", noisy.noise_multiplier},
                  {"sensitivity", sensitivity},
                  {"noise_stddev", noisy.noise_multiplier * sensitivity},
                  {"sampling_rate", noisy.sampling_rate},
                  {"steps_per_party", static_cast<double>(StepsPerSync(config))}};
  entry.participants = parties;
  entry.n_min = 0;  // each party's own noise protects its users: no other party's honesty needed
  entry.unit = dp::PrivacyUnit::kUser;
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

absl::StatusOr<RunEpsilon> RunEpsilonAt(const HflConfig& config, double delta,
                                        std::vector<double> orders) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  absl::StatusOr<double> ours = EpsilonOfSteps(config, NoisyStepsPerUser(config), delta, orders);
  if (!ours.ok()) return ours.status();
  absl::StatusOr<double> paper = EpsilonOfSteps(config, config.local_steps, delta, orders);
  if (!paper.ok()) return paper.status();
  return RunEpsilon{*ours, *paper};
}

}  // namespace fedmf::algorithms::hfl_sgdmf
