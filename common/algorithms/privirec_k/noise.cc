#include "common/algorithms/privirec_k/noise.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec_k {
namespace {

// The largest gamma exponent tried, as PriviRec's.
constexpr int kMaxNoiseScaleExponent = 24;

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

dp::DdgSumNoise PhaseNoise(const v1::PriviRecKNoise& noise, int phase) {
  return {noise.scale(),
          phase == kDegreePhase ? noise.degree_noise_std() : noise.power_noise_std()};
}

absl::StatusOr<ContributionVector> Encode(const v1::PriviRecKConfig& config,
                                          const v1::PriviRecKNoise& noise, int phase,
                                          const Eigen::VectorXd& x, dp::Rng& rng) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  absl::StatusOr<std::vector<uint64_t>> encoded = ddg->Encode(x, rng);
  if (!encoded.ok()) return encoded.status();
  return ContributionVector::Dense(*std::move(encoded));
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

absl::Status ValidateNoiseConfig(const v1::PriviRecKConfig& config) {
  if (!std::isfinite(config.epsilon()) || config.epsilon() < 0) {
    return BadDpOption(absl::StrCat("epsilon=", config.epsilon(), " must be finite and >= 0"));
  }
  if (!Noisy(config)) return absl::OkStatus();
  if (!(config.delta() > 0 && config.delta() < 1)) {
    return BadDpOption(absl::StrCat("delta=", config.delta(), " must be in (0, 1)"));
  }
  if (config.degree_clip() < 1) {
    return BadDpOption(absl::StrCat("degree_clip=", config.degree_clip(), " must be >= 1"));
  }
  // Every user's power vector is dense: n m k coordinates per power sum.
  const auto users = static_cast<uint64_t>(config.num_users());
  if (PowerLength(config) > kMaxNoisyCoordinates / users) {
    return BadDpOption(absl::StrCat(
        "rank=", config.rank(), " (--privirec_k_rank) with ", config.num_items(), " items and ",
        config.num_users(), " users needs n m k = ", users * PowerLength(config),
        " dense noisy coordinates per power sum, more than ", kMaxNoisyCoordinates,
        " (each user's noisy vector is dense); lower the rank or the catalogue"));
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
      dp::CalibrateDdgSums(sums, config.num_users(), NoiseBudget(config), privirec::kMaxSumBits,
                           kMaxNoiseScaleExponent, kAlgorithmName);
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
  return dp::SumDdg(PhaseSum(config, phase), PhaseNoise(noise, phase), config.num_users());
}

absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecKConfig& config,
                                                 const v1::PriviRecKNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders) {
  return dp::DdgSumLedgerEntry(PhaseSum(config, phase), PhaseNoise(noise, phase),
                               config.num_users(), phase, participants, orders);
}

absl::StatusOr<ContributionVector> NoisyDegrees(const v1::PriviRecKConfig& config,
                                                const v1::PriviRecKNoise& noise,
                                                absl::Span<const int32_t> items, dp::Rng& rng) {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(config.num_items());
  for (int32_t item : items) x[item] = 1;  // the mechanism clips to sqrt(D)
  return Encode(config, noise, kDegreePhase, x, rng);
}

absl::StatusOr<ContributionVector> NoisyPowerStep(const v1::PriviRecKConfig& config,
                                                  const v1::PriviRecKNoise& noise, int phase,
                                                  absl::Span<const int32_t> items,
                                                  absl::Span<const double> noisy_degrees,
                                                  const Eigen::Ref<const RowMatrix>& x,
                                                  dp::Rng& rng) {
  const int32_t k = config.rank();
  Eigen::VectorXd dense = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(PowerLength(config)));
  if (!items.empty()) {
    std::vector<double> item_degrees;
    item_degrees.reserve(items.size());
    for (int32_t item : items) item_degrees.push_back(noisy_degrees[static_cast<size_t>(item)]);
    absl::StatusOr<RowMatrix> rows = PowerStep(items, item_degrees, x);
    if (!rows.ok()) return rows.status();
    for (size_t t = 0; t < items.size(); ++t) {
      dense.segment(static_cast<Eigen::Index>(items[t]) * k, k) =
          rows->row(static_cast<Eigen::Index>(t)).transpose();
    }
  }
  return Encode(config, noise, phase, dense, rng);
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
  return RowMatrix(Eigen::Map<const RowMatrix>(decoded->data(), config.num_items(), config.rank()));
}

}  // namespace fedmf::algorithms::privirec_k
