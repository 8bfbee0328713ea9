#include "common/algorithms/privirec/noise.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec {
namespace {

absl::Status BadDpOption(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec DP option: ", what));
}

bool IsGram(int phase) { return phase == kGramPhase; }

int64_t PhaseLength(const v1::PriviRecConfig& config, int phase) {
  return IsGram(phase) ? static_cast<int64_t>(UpperLength(config.num_items())) : config.num_items();
}

// The L2 bound of one user's vector before scaling (noise.h).
double PhaseClip(const v1::PriviRecConfig& config, int phase) {
  return IsGram(phase) ? 1.0 : std::sqrt(static_cast<double>(config.degree_clip()));
}

dp::DdgSum PhaseSum(const v1::PriviRecConfig& config, int phase) {
  // linf 1: an indicator, or a Gram weight d^-2alpha <= 1.
  return {
      .dim = PhaseLength(config, phase), .clip_norm = PhaseClip(config, phase), .linf_bound = 1};
}

dp::DdgPopulation Population(const v1::PriviRecConfig& config) {
  return {config.num_users(), NoiseParties(config)};
}

dp::DdgSumNoise PhaseNoise(const v1::PriviRecNoise& noise, int phase) {
  return IsGram(phase) ? dp::DdgSumNoise{noise.gram_scale(), noise.gram_noise_std()}
                       : dp::DdgSumNoise{noise.degree_scale(), noise.degree_noise_std()};
}

}  // namespace

absl::Status ValidateDenseCodes(absl::string_view who, uint64_t codes, absl::string_view vector,
                                absl::string_view remedy) {
  if (codes <= kMaxDenseCodes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      who, " DP option: a noise party's ", vector, " is dense: ", codes, " codes, more than the ",
      kMaxDenseCodes, " one message carries (protobuf's 2^31 - 1 bytes, up to 9 bytes a code); ",
      remedy));
}

absl::Status ValidateNoiseParties(int64_t noise_parties, int64_t users, bool noisy,
                                  absl::string_view who, absl::string_view flag,
                                  absl::string_view epsilon_flag) {
  if (noise_parties == 0) return absl::OkStatus();
  if (!noisy) {
    return absl::InvalidArgumentError(absl::StrCat(who, " DP option: noise_parties=", noise_parties,
                                                   " (", flag, ") needs ", epsilon_flag, " > 0"));
  }
  if (noise_parties < 0 || noise_parties > users) {
    return absl::InvalidArgumentError(absl::StrCat(who, " DP option: noise_parties=", noise_parties,
                                                   " (", flag, ") must be in [1, ", users,
                                                   "] (the users), or 0: every user"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::NoiseCommittee>> RunCommittee(uint64_t seed, int64_t users,
                                                               int64_t noise_parties) {
  if (noise_parties == 0) return std::nullopt;
  absl::StatusOr<dp::NoiseCommittee> committee =
      dp::NoiseCommittee::Select(seed, users, noise_parties);
  if (!committee.ok()) return committee.status();
  return *std::move(committee);
}

absl::StatusOr<NoiseShare> ShareOf(const std::optional<dp::NoiseCommittee>& committee,
                                   uint32_t participant_id) {
  if (!committee) return NoiseShare::kAdd;
  if (participant_id == 0) {
    return absl::InvalidArgumentError("a noise committee needs the participant's id (got 0)");
  }
  return committee->Contains(participant_id) ? NoiseShare::kAdd : NoiseShare::kNone;
}

absl::StatusOr<ContributionVector> EncodeShare(const dp::DistributedDiscreteGaussian& ddg,
                                               std::vector<uint64_t> indices,
                                               const Eigen::VectorXd& values, NoiseShare share,
                                               dp::Rng& rng) {
  if (share == NoiseShare::kNone) {
    absl::StatusOr<std::vector<uint64_t>> codes = ddg.EncodeSupport(values, rng);
    if (!codes.ok()) return codes.status();
    return ContributionVector::Sparse(std::move(indices), *std::move(codes));
  }
  Eigen::VectorXd dense = Eigen::VectorXd::Zero(ddg.params().dim);
  for (size_t t = 0; t < indices.size(); ++t) {
    dense[static_cast<Eigen::Index>(indices[t])] = values[static_cast<Eigen::Index>(t)];
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = ddg.Encode(dense, rng);
  if (!encoded.ok()) return encoded.status();
  return ContributionVector::Dense(*std::move(encoded));
}

bool Noisy(const v1::PriviRecConfig& config) { return config.epsilon() > 0; }

int64_t NoiseParties(const v1::PriviRecConfig& config) {
  return config.noise_parties() > 0 ? config.noise_parties() : config.num_users();
}

absl::Status ValidateNoiseConfig(const v1::PriviRecConfig& config, double alpha) {
  if (!std::isfinite(config.epsilon()) || config.epsilon() < 0) {
    return BadDpOption(absl::StrCat("epsilon=", config.epsilon(), " must be finite and >= 0"));
  }
  if (absl::Status s =
          ValidateNoiseParties(config.noise_parties(), config.num_users(), Noisy(config),
                               kAlgorithmName, "option noise_parties", "option epsilon");
      !s.ok()) {
    return s;
  }
  if (!Noisy(config)) return absl::OkStatus();
  if (!(config.delta() > 0 && config.delta() < 1)) {
    return BadDpOption(absl::StrCat("delta=", config.delta(), " must be in (0, 1)"));
  }
  if (!std::isfinite(config.gram_threshold()) || config.gram_threshold() < 0) {
    return BadDpOption(
        absl::StrCat("gram_threshold=", config.gram_threshold(), " must be finite and >= 0"));
  }
  if (config.degree_clip() < 1) {
    return BadDpOption(absl::StrCat("degree_clip=", config.degree_clip(), " must be >= 1"));
  }
  if (alpha < 0.5) {
    return BadDpOption(absl::StrCat("filter alpha=", alpha,
                                    " < 1/2: the Gram contribution's norm is then unbounded"));
  }
  return ValidateDenseCodes(
      kAlgorithmName, UpperLength(config.num_items()),
      absl::StrCat("Gram vector (m (m + 1) / 2 for m = ", config.num_items(), " items)"),
      "use fewer items, or --algorithm=privirec-k, whose noisy vectors are m k");
}

dp::PrivacyBudget NoiseBudget(const v1::PriviRecConfig& config) {
  return dp::PrivacyBudget::ApproxDp(config.epsilon(), config.delta());
}

absl::StatusOr<dp::DistributedDiscreteGaussian> PhaseDdg(const v1::PriviRecConfig& config,
                                                         const v1::PriviRecNoise& noise,
                                                         int phase) {
  return dp::SumDdg(PhaseSum(config, phase), PhaseNoise(noise, phase), Population(config));
}

absl::StatusOr<v1::PriviRecNoise> CalibrateNoise(const v1::PriviRecConfig& config) {
  const dp::DdgSum sums[] = {PhaseSum(config, kDegreePhase), PhaseSum(config, kGramPhase)};
  absl::StatusOr<std::vector<dp::DdgSumNoise>> calibrated =
      dp::CalibrateDdgSums(sums, Population(config), NoiseBudget(config), kMaxSumBits,
                           kMaxNoiseScaleExponent, kAlgorithmName);
  if (!calibrated.ok()) return calibrated.status();
  v1::PriviRecNoise noise;
  noise.set_degree_scale((*calibrated)[0].scale);
  noise.set_degree_noise_std((*calibrated)[0].noise_std);
  noise.set_gram_scale((*calibrated)[1].scale);
  noise.set_gram_noise_std((*calibrated)[1].noise_std);
  return noise;
}

absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecConfig& config,
                                                 const v1::PriviRecNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders) {
  return dp::DdgSumLedgerEntry(PhaseSum(config, phase), PhaseNoise(noise, phase),
                               Population(config), phase, participants, orders);
}

absl::StatusOr<ContributionVector> NoisyContribution(const v1::PriviRecConfig& config,
                                                     const v1::PriviRecNoise& noise, int phase,
                                                     absl::Span<const int32_t> items, double alpha,
                                                     NoiseShare share, dp::Rng& rng) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  if (!IsGram(phase)) {  // the indicator of the items
    return EncodeShare(*ddg, DegreeIndices(items),
                       Eigen::VectorXd::Ones(static_cast<Eigen::Index>(items.size())), share, rng);
  }
  std::vector<uint64_t> indices = GramIndices(config.num_items(), items);
  const double w = items.empty() ? 0.0 : GramWeight(static_cast<int64_t>(items.size()), alpha);
  const Eigen::VectorXd values =
      Eigen::VectorXd::Constant(static_cast<Eigen::Index>(indices.size()), w);
  return EncodeShare(*ddg, std::move(indices), values, share, rng);
}

absl::Status ApplyNoisySum(const v1::PriviRecNoise& noise, int phase,
                           absl::Span<const uint64_t> sum, int64_t clients,
                           v1::PriviRecModel& model) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(model.config(), noise, phase);
  if (!ddg.ok()) return ddg.status();
  absl::StatusOr<Eigen::VectorXd> decoded = ddg->Decode(sum, clients);
  if (!decoded.ok()) return decoded.status();
  if (!IsGram(phase)) {
    model.clear_noisy_degrees();
    for (double d : *decoded) model.add_noisy_degrees(d < 1 ? 0.0 : d);
    return absl::OkStatus();
  }
  model.clear_gram_index();
  model.clear_noisy_gram();
  const double floor = model.config().gram_threshold() * noise.gram_noise_std();
  for (Eigen::Index j = 0; j < decoded->size(); ++j) {
    if ((*decoded)[j] <= floor) continue;
    model.add_gram_index(static_cast<uint64_t>(j));
    model.add_noisy_gram((*decoded)[j]);
  }
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms::privirec
