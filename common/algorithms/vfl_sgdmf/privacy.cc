#include "common/algorithms/vfl_sgdmf/privacy.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/dp/rdp_gaussian.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

dp::PrivacyUnit Unit(const v1::VflSgdmfConfig& config) {
  return config.per_user() ? dp::PrivacyUnit::kUser : dp::PrivacyUnit::kRating;
}

// Steps a unit's data takes part in when `parties` parties each run `steps`.
int64_t ComposedSteps(const v1::VflSgdmfConfig& config, int64_t parties, int64_t steps) {
  return config.per_user() ? parties * steps : steps;
}

int64_t RunSteps(const v1::VflSgdmfConfig& config) {
  return config.syncs() * config.local_steps() + config.item_only_steps();
}

}  // namespace

int64_t PartySteps(const v1::VflSgdmfConfig& config, int64_t round) {
  if (!IsFinalRound(config, round)) return config.local_steps();
  if (round != SyncRounds(config)) return 0;
  return config.local_only() ? RunSteps(config) : config.item_only_steps();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundEntry(const v1::VflSgdmfConfig& config,
                                                          int64_t round, int64_t parties,
                                                          const std::vector<double>& orders) {
  const int64_t steps = PartySteps(config, round);
  if (config.noise_multiplier() == 0 || steps == 0) return std::nullopt;
  const int64_t composed = ComposedSteps(config, parties, steps);
  absl::StatusOr<dp::RdpCurve> curve = dp::SubsampledGaussianCurve(
      config.sampling_rate(), config.noise_multiplier(), composed, orders);
  if (!curve.ok()) return curve.status();
  const fmf_sgd::DpSgdMfConfig step = StepConfig(config);
  // Local-only's round mixes (U, V) and V-only steps: the larger (U, V) sensitivity is reported;
  // the RDP depends only on z, eta and the steps.
  const double sensitivity = fmf_sgd::StepSensitivity(step, UpdatesUsers(config, round));
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = fmf_sgd::kStepMechanism;
  entry.params = {{"noise_multiplier", config.noise_multiplier()},
                  {"sensitivity", sensitivity},
                  {"noise_stddev", config.noise_multiplier() * sensitivity},
                  {"sampling_rate", config.sampling_rate()},
                  {"steps_per_party", static_cast<double>(steps)},
                  {"composed_steps", static_cast<double>(composed)}};
  entry.participants = parties;
  entry.n_min = 0;  // each party's own noise protects its data: no other party's honesty needed
  entry.unit = Unit(config);
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

std::optional<dp::PrivacyBudget> Budget(const v1::VflSgdmfConfig& config) {
  if (config.budget_epsilon() == 0) return std::nullopt;
  return dp::PrivacyBudget::ApproxDp(config.budget_epsilon(), config.budget_delta(), Unit(config));
}

absl::StatusOr<double> CalibrateNoiseMultiplier(const v1::VflSgdmfConfig& config,
                                                std::vector<double> orders) {
  const std::optional<dp::PrivacyBudget> budget = Budget(config);
  if (!budget) return absl::InvalidArgumentError("vfl-sgdmf: no budget to calibrate the noise to");
  return dp::CalibrateGaussianNoiseMultiplier(
      *budget, config.sampling_rate(),
      ComposedSteps(config, config.num_parties(), RunSteps(config)), std::move(orders));
}

absl::StatusOr<RunEpsilon> RunEpsilonAt(const v1::VflSgdmfConfig& config, double delta,
                                        std::vector<double> orders) {
  const dp::PrivacyBudget at = dp::PrivacyBudget::ApproxDp(1, delta, Unit(config));
  const auto epsilon = [&](int64_t steps) -> absl::StatusOr<double> {
    absl::StatusOr<dp::RdpCurve> curve = dp::SubsampledGaussianCurve(
        config.sampling_rate(), config.noise_multiplier(), steps, orders);
    if (!curve.ok()) return curve.status();
    return dp::SpentEpsilon(*curve, at);
  };
  absl::StatusOr<double> ours =
      epsilon(ComposedSteps(config, config.num_parties(), RunSteps(config)));
  if (!ours.ok()) return ours.status();
  absl::StatusOr<double> party = epsilon(RunSteps(config));
  if (!party.ok()) return party.status();
  const double paper = config.per_user() ? std::sqrt(config.num_parties()) * *party : *party;
  return RunEpsilon{*ours, paper};
}

}  // namespace fedmf::algorithms::vfl_sgdmf
