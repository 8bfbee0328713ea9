#include "common/algorithms/hdpmf/hdpmf.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/user_math.h"
#include "common/algorithms/public_init.h"
#include "common/dp/fixed_point.h"
#include "common/dp/laplace.h"
#include "common/dp/privacy_cost.h"
#include "common/util/positive_finite.h"

namespace fedmf::algorithms::hdpmf {

namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat("hdpmf config: ", field, "=", value, ", need ", need));
}

bool Paper(const v1::HdpmfConfig& c) { return c.mode() == v1::HDPMF_MODE_PAPER; }

// Integer units of a sum stay within 2^58, far below the 2^61 of Z_{2^62}'s centered half.
constexpr double kMaxUnits = 0x1p58;
constexpr int kMaxFractionBits = 40;
constexpr int kMinFractionBits = 8;

// Smallest z with P(Gamma(k, 1) >= z) <= exp(-log_tail) by the Chernoff bound
// P(A >= z) <= exp(-(z - k - k ln(z / k))), z > k.
double GammaTail(double k, double log_tail) {
  const auto exponent = [k](double z) { return z - k - k * std::log(z / k); };
  double hi = k + 1;
  while (exponent(hi) < log_tail) hi *= 2;
  double lo = k;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (exponent(mid) < log_tail ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

absl::Status ValidateConfig(const v1::HdpmfConfig& c) {
  if (c.num_users() < 1) return Bad("num_users", static_cast<double>(c.num_users()), ">= 1");
  if (c.num_items() < 1) return Bad("num_items", c.num_items(), ">= 1");
  if (c.rank() < 1 || c.rank() > 1000) return Bad("rank", c.rank(), "K in [1, 1000]");
  if (int64_t{c.num_items()} * c.rank() > (int64_t{1} << 26)) {
    return Bad("rank", c.rank(), "num_items * rank <= 2^26");
  }
  if (c.rounds() < 1 || c.rounds() > 100000) {
    return Bad("rounds", static_cast<double>(c.rounds()), "T in [1, 100000]");
  }
  if (!IsPositiveFinite(c.epsilon())) return Bad("epsilon", c.epsilon(), "> 0");
  if (c.mode() != v1::HDPMF_MODE_PAPER && c.mode() != v1::HDPMF_MODE_SOUND) {
    return Bad("mode", c.mode(), "paper or sound");
  }
  if (c.variant() < v1::HDPMF_VARIANT_HDPMF || c.variant() > v1::HDPMF_VARIANT_PDPMF) {
    return Bad("variant", c.variant(), "hdpmf, dpmf, mf or pdpmf");
  }
  // The baselines share the paper's per-rating path (and its ||u|| <= 1 bound on the signal).
  if (c.variant() != v1::HDPMF_VARIANT_HDPMF && !Paper(c)) {
    return Bad("variant", c.variant(), "hdpmf in sound mode (the baselines are paper-mode ones)");
  }
  if (!IsPositiveFinite(c.learning_rate())) return Bad("learning_rate", c.learning_rate(), "> 0");
  if (!IsPositiveFinite(c.lambda())) return Bad("lambda", c.lambda(), "> 0");
  if (!std::isfinite(c.rating_min())) return Bad("rating_min", c.rating_min(), "finite");
  if (!std::isfinite(c.rating_max()) || c.rating_max() <= c.rating_min()) {
    return Bad("rating_max", c.rating_max(), "> rating_min");
  }
  if (!IsPositiveFinite(c.clip())) return Bad("clip", c.clip(), "> 0");
  if (!IsPositiveFinite(c.score_lambda())) return Bad("score_lambda", c.score_lambda(), "> 0");
  if (!IsPositiveFinite(c.init_scale())) return Bad("init_scale", c.init_scale(), "> 0");
  if (!std::isfinite(c.init_center())) return Bad("init_center", c.init_center(), "finite");
  if (c.skip_rescaling() && !Stretches(c)) {
    return Bad("skip_rescaling", 1, "only for the hdpmf variant in paper mode (HDPMF-R)");
  }
  // Ablations of the paper's own choices: sound mode's guarantee rests on the projection and the
  // clamp costs it nothing, so they are paper-mode switches only.
  if (c.skip_user_projection() && !Paper(c)) {
    return Bad("skip_user_projection", 1, "only in paper mode (the sound mode projects u)");
  }
  if (c.skip_prediction_clamp() && !Paper(c)) {
    return Bad("skip_prediction_clamp", 1, "only in paper mode");
  }
  if (c.pdpmf_mean_weight() != 0 && (c.variant() != v1::HDPMF_VARIANT_PDPMF ||
                                     !(c.pdpmf_mean_weight() > 0 && c.pdpmf_mean_weight() <= 1))) {
    return Bad("pdpmf_mean_weight", c.pdpmf_mean_weight(), "0, or in (0, 1] for the pdpmf variant");
  }
  if (c.cohort_size() < 1 || c.cohort_size() > c.num_users()) {
    return Bad("cohort_size", static_cast<double>(c.cohort_size()), "in [1, num_users]");
  }
  if (c.min_contributors() < 1 || c.min_contributors() > c.cohort_size()) {
    return Bad("min_contributors", static_cast<double>(c.min_contributors()),
               "n_min in [1, cohort_size]");
  }
  if (c.simulation_summed_noise() && c.variant() == v1::HDPMF_VARIANT_MF) {
    return absl::InvalidArgumentError(
        "hdpmf config: simulation_summed_noise needs noise (variant mf has none to sum)");
  }
  return ValidatePrivacySpec(c.spec());
}

int64_t GradientDim(const v1::HdpmfConfig& config) {
  return int64_t{config.num_items()} * config.rank();
}

double StepSize(const v1::HdpmfConfig& config, int64_t round) {
  const int64_t t4 = 4 * round;
  if (t4 < config.rounds()) return config.learning_rate();
  if (t4 < 3 * config.rounds()) return config.learning_rate() / 5;
  return config.learning_rate() / 25;
}

double RoundEpsilon(const v1::HdpmfConfig& config) {
  switch (config.variant()) {
    case v1::HDPMF_VARIANT_MF:
      return 0;
    case v1::HDPMF_VARIANT_DPMF:
      return dp::SplitPureEpsilon(
          config.epsilon() *
              SmallestRatingWeight(config.spec(), config.num_users(), config.num_items()),
          config.rounds());
    case v1::HDPMF_VARIANT_PDPMF:
      return PdpmfThreshold(config);
    default:
      return dp::SplitPureEpsilon(config.epsilon(), config.rounds());
  }
}

double MeanRatingWeight(const v1::HdpmfConfig& config) {
  const std::vector<double> beta = UserWeights(config.spec(), config.num_users());
  const std::vector<double> gamma = ItemWeights(config.spec(), config.num_items());
  const double mean_beta = std::accumulate(beta.begin(), beta.end(), 0.0) / beta.size();
  const double mean_gamma = std::accumulate(gamma.begin(), gamma.end(), 0.0) / gamma.size();
  return mean_beta * mean_gamma;
}

double PdpmfThreshold(const v1::HdpmfConfig& config) {
  const double mean_weight =
      config.pdpmf_mean_weight() > 0 ? config.pdpmf_mean_weight() : MeanRatingWeight(config);
  return dp::SplitPureEpsilon(config.epsilon() * mean_weight, config.rounds());
}

double DefaultInitCenter(const v1::HdpmfConfig& config) {
  const double midpoint = (config.rating_min() + config.rating_max()) / 2;
  return Stretches(config) ? midpoint * MeanRatingWeight(config) : midpoint;
}

double PdpmfKeepProbability(const v1::HdpmfConfig& config, double threshold, double rating_weight) {
  const double eps = rating_weight * dp::SplitPureEpsilon(config.epsilon(), config.rounds());
  return eps < threshold ? std::expm1(eps) / std::expm1(threshold) : 1.0;
}

double UserRoundEpsilon(const v1::HdpmfConfig& config, double privacy_weight) {
  return std::min(dp::SplitPureEpsilon(privacy_weight * config.epsilon(), config.rounds()),
                  RoundEpsilon(config));
}

double NoiseScale(const v1::HdpmfConfig& config) {
  if (config.variant() == v1::HDPMF_VARIANT_MF) return 0;
  const double eps = RoundEpsilon(config);
  if (!Paper(config)) return 2 * config.clip() / eps;
  const double delta = config.rating_max() - config.rating_min();
  return 2 * std::sqrt(static_cast<double>(config.rank())) * delta / eps;
}

absl::StatusOr<Eigen::VectorXd> NoiseShare(const v1::HdpmfConfig& config, int64_t dim,
                                           dp::Rng& rng) {
  const double b = NoiseScale(config);
  if (b == 0) return Eigen::VectorXd::Zero(dim);
  return dp::GammaDifferenceLaplaceShare(dim, b, config.min_contributors(), rng);
}

absl::StatusOr<Eigen::VectorXd> SummedNoise(const v1::HdpmfConfig& config, int64_t contributors,
                                            int64_t dim, dp::Rng& rng) {
  const double b = NoiseScale(config);
  if (b == 0) return Eigen::VectorXd::Zero(dim);
  return dp::SummedGammaDifferenceLaplaceShares(dim, b, config.min_contributors(), contributors,
                                                rng);
}

std::optional<dp::LedgerEntry> RoundRelease(const v1::HdpmfConfig& config, int64_t round,
                                            int64_t participants) {
  if (config.variant() == v1::HDPMF_VARIANT_MF) return std::nullopt;
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = config.variant() == v1::HDPMF_VARIANT_DPMF    ? "dpmf-laplace"
                    : config.variant() == v1::HDPMF_VARIANT_PDPMF ? "pdpmf-sample-laplace"
                                                                  : "hdpmf-laplace";
  entry.params = {{"noise_scale", NoiseScale(config)},
                  {"rank", static_cast<double>(config.rank())},
                  {"epsilon", RoundEpsilon(config)}};
  if (!Paper(config)) entry.params.emplace_back("clip", config.clip());
  entry.participants = participants;
  entry.n_min = std::min(config.min_contributors(), participants);
  entry.unit = Paper(config) ? dp::PrivacyUnit::kRating : dp::PrivacyUnit::kUser;
  entry.pure_epsilon = RoundEpsilon(config);
  entry.heterogeneous =
      config.variant() == v1::HDPMF_VARIANT_HDPMF || config.variant() == v1::HDPMF_VARIANT_PDPMF;
  return entry;
}

std::optional<dp::LedgerEntry> UserCost(const v1::HdpmfConfig& config, int64_t round,
                                        double privacy_weight) {
  std::optional<dp::LedgerEntry> entry = RoundRelease(config, round, /*participants=*/1);
  if (!entry || !entry->heterogeneous) return entry;
  entry->pure_epsilon = UserRoundEpsilon(config, privacy_weight);  // PDPMF: min(beta eps_r, t)
  entry->heterogeneous = false;
  return entry;
}

Eigen::MatrixXd InitialItemFactors(const v1::HdpmfConfig& config) {
  const double center = config.init_center() / std::sqrt(static_cast<double>(config.rank()));
  return PublicNormalMatrix(config.num_items(), config.rank(), config.init_scale(), config.seed(),
                            0)
             .array() +
         center;
}

Eigen::VectorXd InitialUserFactor(const v1::HdpmfConfig& config, uint32_t participant_id) {
  const double center =
      config.init_center() == 0 ? 0 : 1 / std::sqrt(static_cast<double>(config.rank()));
  return ProjectToUnitBall(
      PublicNormalMatrix(config.rank(), 1, config.init_scale(), config.seed(), participant_id)
          .col(0)
          .array() +
      center);
}

absl::StatusOr<RoundCodec> MakeRoundCodec(const v1::HdpmfConfig& config,
                                          const Eigen::MatrixXd& item_factors) {
  RoundCodec codec;
  if (Paper(config)) {
    const double max_rating =
        std::max(std::abs(config.rating_min()), std::abs(config.rating_max()));
    codec.bound = 2 * (item_factors.rowwise().norm().maxCoeff() + max_rating);
  } else {
    codec.bound = config.clip();
  }
  const double n = static_cast<double>(config.cohort_size());
  double real_range = n * codec.bound;
  const double b = NoiseScale(config);
  if (b > 0) {
    const double k = n / static_cast<double>(config.min_contributors());
    const double log_tail =
        std::log(2 * static_cast<double>(GradientDim(config)) / kWrapProbability);
    real_range += b * GammaTail(k, log_tail);
  }
  if (!std::isfinite(real_range)) {
    return absl::OutOfRangeError("hdpmf: the round's sum has no finite range (V diverged?)");
  }
  codec.fraction_bits =
      std::min(kMaxFractionBits, static_cast<int>(std::floor(std::log2(kMaxUnits / real_range))));
  if (codec.fraction_bits < kMinFractionBits) {
    return absl::OutOfRangeError(absl::StrCat("hdpmf: the round's sum range ", real_range,
                                              " leaves fewer than ", kMinFractionBits,
                                              " fraction bits in Z_2^62"));
  }
  // Stochastic rounding moves each client's coordinate by less than one unit.
  codec.range = std::ceil(std::ldexp(real_range, codec.fraction_bits)) + n;
  absl::StatusOr<int> bits = dp::ModulusBitsForRange(codec.range);
  if (!bits.ok()) return bits.status();
  codec.bits = *bits;
  return codec;
}

absl::StatusOr<std::vector<uint64_t>> RoundCodec::Encode(
    const Eigen::Ref<const Eigen::VectorXd>& values, dp::Rng& rng) const {
  std::vector<uint64_t> out(static_cast<size_t>(values.size()));
  for (Eigen::Index j = 0; j < values.size(); ++j) {
    const double y = std::ldexp(values[j], fraction_bits);
    if (!(std::abs(y) < 0x1p60)) {
      return absl::OutOfRangeError(
          absl::StrCat("hdpmf: coordinate ", j, " = ", values[j], " does not fit the codec"));
    }
    out[j] = dp::ReduceModPow2(dp::StochasticRound(y, rng), bits);
  }
  return out;
}

absl::StatusOr<Eigen::VectorXd> RoundCodec::Decode(absl::Span<const uint64_t> sum) const {
  return dp::DecodeCheckedSum(sum, bits, range, std::ldexp(1.0, fraction_bits));
}

}  // namespace fedmf::algorithms::hdpmf
