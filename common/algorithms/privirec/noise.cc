#include "common/algorithms/privirec/noise.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/dp/monotone_search.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_ddg.h"

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

double PhaseNoiseStd(const v1::PriviRecNoise& noise, int phase) {
  return IsGram(phase) ? noise.gram_noise_std() : noise.degree_noise_std();
}

double PhaseScale(const v1::PriviRecNoise& noise, int phase) {
  return IsGram(phase) ? noise.gram_scale() : noise.degree_scale();
}

dp::DdgRdpParams PhaseRelease(const v1::PriviRecConfig& config,
                              const dp::DistributedDiscreteGaussian& ddg, double total_std_grid) {
  return dp::ReplaceOneDdgRelease(ddg.rounded_l2_bound(), ddg.params().dim, config.num_users(),
                                  total_std_grid);
}

}  // namespace

bool Noisy(const v1::PriviRecConfig& config) { return config.epsilon() > 0; }

absl::Status ValidateNoiseConfig(const v1::PriviRecConfig& config, double alpha) {
  if (!std::isfinite(config.epsilon()) || config.epsilon() < 0) {
    return BadDpOption(absl::StrCat("epsilon=", config.epsilon(), " must be finite and >= 0"));
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
  return absl::OkStatus();
}

dp::PrivacyBudget NoiseBudget(const v1::PriviRecConfig& config) {
  return dp::PrivacyBudget::ApproxDp(config.epsilon(), config.delta());
}

absl::StatusOr<dp::DistributedDiscreteGaussian> PhaseDdg(const v1::PriviRecConfig& config,
                                                         const v1::PriviRecNoise& noise,
                                                         int phase) {
  return dp::DistributedDiscreteGaussian::Create(
      {.dim = PhaseLength(config, phase),
       .clip_norm = PhaseClip(config, phase),
       .linf_bound = 1,  // an indicator, or a Gram weight d^-2alpha <= 1
       .noise_std = PhaseNoiseStd(noise, phase),
       .min_clients = config.num_users(),
       .max_clients = config.num_users(),
       .scale = PhaseScale(noise, phase)});
}

absl::StatusOr<v1::PriviRecNoise> CalibrateNoise(const v1::PriviRecConfig& config) {
  const int64_t n = config.num_users();
  const double floor = std::sqrt(static_cast<double>(n)) / 2;  // v >= 1/4 (grid units)
  for (int j = kMaxNoiseScaleExponent; j >= 0; --j) {
    const double scale = std::ldexp(1.0, j);
    v1::PriviRecNoise noise;
    noise.set_degree_scale(scale);
    noise.set_gram_scale(scale);
    // Delta_2 does not depend on the noise: any valid std gives it.
    noise.set_degree_noise_std(1 / scale);
    noise.set_gram_noise_std(1 / scale);
    absl::StatusOr<dp::DistributedDiscreteGaussian> degree = PhaseDdg(config, noise, kDegreePhase);
    absl::StatusOr<dp::DistributedDiscreteGaussian> gram = PhaseDdg(config, noise, kGramPhase);
    if (!degree.ok() || !gram.ok()) continue;  // gamma c + sqrt(d) beyond 2^31
    const double l2_degree = 2 * degree->rounded_l2_bound();
    const double l2_gram = 2 * gram->rounded_l2_bound();
    // Total stds (grid units) for the noise multiplier z.
    auto stds = [&](double z) {
      return std::pair(std::max(z * l2_degree, floor), std::max(z * l2_gram, floor));
    };
    absl::StatusOr<double> z = dp::SmallestFitting(
        [&](double z) -> absl::StatusOr<bool> {
          absl::StatusOr<dp::RdpCurve> curve = dp::RdpCurve::Zero(dp::DefaultOrders());
          if (!curve.ok()) return curve.status();
          const auto [s_degree, s_gram] = stds(z);
          for (const auto& [ddg, s] : {std::pair(&*degree, s_degree), std::pair(&*gram, s_gram)}) {
            absl::StatusOr<dp::RdpCurve> one =
                dp::DdgCurve(PhaseRelease(config, *ddg, s), 1, dp::DefaultOrders());
            if (!one.ok()) return one.status();
            if (absl::Status s = curve->Compose(*one); !s.ok()) return s;
          }
          return dp::WithinBudget(*curve, NoiseBudget(config));
        },
        "privirec's noise multiplier");
    if (!z.ok()) return z.status();
    const auto [s_degree, s_gram] = stds(*z);
    noise.set_degree_noise_std(s_degree / scale);
    noise.set_gram_noise_std(s_gram / scale);
    degree = PhaseDdg(config, noise, kDegreePhase);
    gram = PhaseDdg(config, noise, kGramPhase);
    if (degree.ok() && gram.ok() && degree->modulus_bits() <= kMaxSumBits &&
        gram->modulus_bits() <= kMaxSumBits) {
      return noise;
    }
  }
  return BadDpOption(absl::StrCat("no scale 2^j, j in [0, ", kMaxNoiseScaleExponent, "], fits ",
                                  kMaxSumBits, " bits with ", n, " users"));
}

absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecConfig& config,
                                                 const v1::PriviRecNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  // The calibrated variance, not the sampler's (rounded up to a rational, so never smaller).
  const dp::DdgRdpParams release =
      PhaseRelease(config, *ddg, PhaseNoiseStd(noise, phase) * PhaseScale(noise, phase));
  absl::StatusOr<dp::RdpCurve> curve = dp::DdgCurve(release, 1, orders);
  if (!curve.ok()) return curve.status();
  dp::LedgerEntry entry;
  entry.round = 0;
  entry.mechanism = "ddg";
  entry.params = {{"phase", static_cast<double>(phase)},
                  {"noise_std", PhaseNoiseStd(noise, phase)},
                  {"scale", PhaseScale(noise, phase)},
                  {"l2_sensitivity", release.l2_sensitivity},
                  {"dimension", static_cast<double>(release.dim)},
                  {"bits", static_cast<double>(ddg->modulus_bits())}};
  entry.participants = participants;
  entry.n_min = config.num_users();
  entry.unit = dp::PrivacyUnit::kUser;
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

absl::StatusOr<ContributionVector> NoisyContribution(const v1::PriviRecConfig& config,
                                                     const v1::PriviRecNoise& noise, int phase,
                                                     absl::Span<const int32_t> items, double alpha,
                                                     dp::Rng& rng) {
  absl::StatusOr<dp::DistributedDiscreteGaussian> ddg = PhaseDdg(config, noise, phase);
  if (!ddg.ok()) return ddg.status();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(PhaseLength(config, phase));
  if (IsGram(phase)) {
    if (!items.empty()) {
      const double w = GramWeight(static_cast<int64_t>(items.size()), alpha);
      for (uint64_t index : GramIndices(config.num_items(), items)) x[index] = w;
    }
  } else {
    for (int32_t item : items) x[item] = 1;
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = ddg->Encode(x, rng);
  if (!encoded.ok()) return encoded.status();
  return ContributionVector::Dense(*std::move(encoded));
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
