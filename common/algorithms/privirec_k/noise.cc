#include "common/algorithms/privirec_k/noise.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec_k {
namespace {

absl::Status BadDpOption(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privirec-k DP option: ", what));
}

dp::DdgSum PhaseSum(const v1::PriviRecKConfig& config, int phase) {
  if (phase == kDegreePhase) {
    return {.dim = config.num_items(),
            .clip_norm = std::sqrt(static_cast<double>(config.degree_clip())),
            .linf_bound = 1};
  }
  return {.dim = static_cast<int64_t>(PowerLength(config)), .clip_norm = 1, .linf_bound = 1};
}

dp::DdgPopulation Population(const v1::PriviRecKConfig& config) {
  return {config.num_users(), NoiseParties(config)};
}

dp::DdgSumNoise PhaseNoise(const v1::PriviRecKNoise& noise, int phase) {
  return {noise.scale(),
          phase == kDegreePhase ? noise.degree_noise_std() : noise.power_noise_std()};
}

absl::StatusOr<Eigen::VectorXd> Decode(const v1::PriviRecKConfig& config,
                                       const v1::PriviRecKNoise& noise, int phase,
                                       absl::Span<const uint64_t> sum, int64_t clients) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  if (sum.size() != static_cast<size_t>(ddg->params().dim)) {
    return absl::InvalidArgumentError(absl::StrCat("privirec-k: a noisy sum of length ", sum.size(),
                                                   ", expected ", ddg->params().dim));
  }
  return ddg->Decode(sum, clients);
}

}  // namespace

bool Noisy(const v1::PriviRecKConfig& config) { return config.epsilon() > 0; }

int64_t NoiseParties(const v1::PriviRecKConfig& config) {
  return config.noise_parties() > 0 ? config.noise_parties() : config.num_users();
}

absl::Status ValidateNoiseConfig(const v1::PriviRecKConfig& config) {
  if (!std::isfinite(config.epsilon()) || config.epsilon() < 0) {
    return BadDpOption(absl::StrCat("epsilon=", config.epsilon(), " must be finite and >= 0"));
  }
  if (!Noisy(config)) {
    if (config.noise_parties() == 0) return absl::OkStatus();
    return BadDpOption(
        absl::StrCat("noise_parties=", config.noise_parties(),
                     " (option noise_parties) needs option epsilon > 0"));
  }
  if (config.noise_parties() < 0 || config.noise_parties() > config.num_users()) {
    return BadDpOption(absl::StrCat("noise_parties=", config.noise_parties(),
                                    " (option noise_parties) must be in [1, ",
                                    config.num_users(), "] (the users), or 0: every user"));
  }
  if (!(config.delta() > 0 && config.delta() < 1)) {
    return BadDpOption(absl::StrCat("delta=", config.delta(), " must be in (0, 1)"));
  }
  if (config.degree_clip() < 1) {
    return BadDpOption(absl::StrCat("degree_clip=", config.degree_clip(), " must be >= 1"));
  }
  // Every noise party's power vector is dense: m k codes in one message, c m k per power sum.
  if (absl::Status s = privirec::ValidateDenseCodes(
          kAlgorithmName, PowerLength(config),
          absl::StrCat("power vector (m (k + p) = ", config.num_items(), " x ",
                       IterateColumns(config), ")"),
          "lower the rank (option rank) or the catalogue");
      !s.ok()) {
    return s;
  }
  const auto parties = static_cast<uint64_t>(NoiseParties(config));
  if (PowerLength(config) > kMaxNoisyCoordinates / parties) {
    return BadDpOption(absl::StrCat(
        "rank=", config.rank(), " (option rank) and oversample=", config.oversample(),
        " (option oversample) with ", config.num_items(), " items and ", parties,
        " noise parties (option noise_parties) needs c m (k + p) = ", parties * PowerLength(config),
        " dense noisy coordinates per power sum, more than ", kMaxNoisyCoordinates,
        " (each noise party's vector is dense); lower the rank, the catalogue or the noise "
        "parties"));
  }
  return absl::OkStatus();
}

dp::PrivacyBudget NoiseBudget(const v1::PriviRecKConfig& config) {
  return dp::PrivacyBudget::ApproxDp(config.epsilon(), config.delta());
}

absl::StatusOr<v1::PriviRecKNoise> CalibrateNoise(const v1::PriviRecKConfig& config) {
  // The degree sum, then the L power sums (all alike).
  std::vector<dp::DdgSum> sums = {PhaseSum(config, kDegreePhase)};
  sums.insert(sums.end(), static_cast<size_t>(config.power_sums()), PhaseSum(config, 1));
  absl::StatusOr<std::vector<dp::DdgSumNoise>> calibrated =
      dp::CalibrateDdgSums(sums, Population(config), NoiseBudget(config), privirec::kMaxSumBits,
                           privirec::kMaxNoiseScaleExponent, kAlgorithmName);
  if (!calibrated.ok()) return calibrated.status();
  v1::PriviRecKNoise noise;
  noise.set_scale(calibrated->front().scale);
  noise.set_degree_noise_std(calibrated->front().noise_std);
  noise.set_power_noise_std(calibrated->back().noise_std);
  return noise;
}

absl::StatusOr<dp::DistributedDiscreteGaussian> PhaseDdg(const v1::PriviRecKConfig& config,
                                                         const v1::PriviRecKNoise& noise,
                                                         int phase) {
  return dp::SumDdg(PhaseSum(config, phase), PhaseNoise(noise, phase), Population(config));
}

absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecKConfig& config,
                                                 const v1::PriviRecKNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders) {
  return dp::DdgSumLedgerEntry(PhaseSum(config, phase), PhaseNoise(noise, phase),
                               Population(config), phase, participants, orders);
}

absl::StatusOr<ContributionVector> NoisyDegrees(const v1::PriviRecKConfig& config,
                                                const v1::PriviRecKNoise& noise,
                                                absl::Span<const int32_t> items, NoiseShare share,
                                                dp::Rng& rng) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, kDegreePhase);
  if (!ddg.ok()) return ddg.status();
  // The indicator of the items; the mechanism clips it to sqrt(D).
  return privirec::EncodeShare(*ddg, privirec::DegreeIndices(items),
                               Eigen::VectorXd::Ones(static_cast<Eigen::Index>(items.size())),
                               share, rng);
}

absl::StatusOr<ContributionVector> NoisyPowerStep(const v1::PriviRecKConfig& config,
                                                  const v1::PriviRecKNoise& noise, int phase,
                                                  absl::Span<const int32_t> items,
                                                  absl::Span<const double> noisy_degrees,
                                                  const Eigen::Ref<const RowMatrix>& x,
                                                  NoiseShare share, dp::Rng& rng) {
  const int32_t k = IterateColumns(config);
  std::vector<uint64_t> indices;
  Eigen::VectorXd values;
  if (!items.empty()) {
    std::vector<double> item_degrees;
    item_degrees.reserve(items.size());
    for (int32_t item : items) item_degrees.push_back(noisy_degrees[static_cast<size_t>(item)]);
    absl::StatusOr<RowMatrix> rows = PowerStep(items, item_degrees, x);
    if (!rows.ok()) return rows.status();
    // Row t is item items[t]'s k coordinates: increasing, as the items are.
    for (int32_t item : items) {
      for (int32_t j = 0; j < k; ++j) {
        indices.push_back(static_cast<uint64_t>(item) * static_cast<uint64_t>(k) +
                          static_cast<uint64_t>(j));
      }
    }
    values = Eigen::Map<const Eigen::VectorXd>(rows->data(), rows->size());
  }
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  return privirec::EncodeShare(*ddg, std::move(indices), values, share, rng);
}

absl::StatusOr<std::vector<double>> DecodeNoisyDegrees(const v1::PriviRecKConfig& config,
                                                       const v1::PriviRecKNoise& noise,
                                                       absl::Span<const uint64_t> sum,
                                                       int64_t clients) {
  absl::StatusOr<Eigen::VectorXd> decoded = Decode(config, noise, kDegreePhase, sum, clients);
  if (!decoded.ok()) return decoded.status();
  std::vector<double> out;
  out.reserve(static_cast<size_t>(decoded->size()));
  for (double d : *decoded) out.push_back(d < 1 ? 0.0 : d);
  return out;
}

absl::StatusOr<RowMatrix> DecodeNoisyPowerSum(const v1::PriviRecKConfig& config,
                                              const v1::PriviRecKNoise& noise, int phase,
                                              absl::Span<const uint64_t> sum, int64_t clients) {
  absl::StatusOr<Eigen::VectorXd> decoded = Decode(config, noise, phase, sum, clients);
  if (!decoded.ok()) return decoded.status();
  return RowMatrix(
      Eigen::Map<const RowMatrix>(decoded->data(), config.num_items(), IterateColumns(config)));
}

}  // namespace fedmf::algorithms::privirec_k
