#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/dp/fixed_point.h"
#include "common/dp/rdp_gaussian.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat("lfl-sgdmf config: ", field, "=", value, ", need ", need));
}

bool Noisy(const v1::LflSgdmfConfig& c) { return c.noise() != v1::LFL_NOISE_NONE; }

// k_1 and k_2 of v_1 = k_1 sigma^2 / n_min and v_2 = k_2 sigma^2 / n_1: with 1/k_1 + 1/k_2 = 1
// the view's variance n_1 v_1 v_2 / (v_1 + v_2) (nobody lost in phase 2, its minimum) is
// sigma^2 / ((n_min / n_1) / k_1 + 1 / k_2) >= sigma^2.
double PhaseShare(const v1::LflSgdmfConfig& c) {
  return c.noise() == v1::LFL_NOISE_TWO_PHASE ? 2 : 1;
}

fmf_sgd::DpSgdMfConfig InitConfig(const v1::LflSgdmfConfig& c) {
  fmf_sgd::DpSgdMfConfig init;
  init.rank = c.rank();
  init.rating_max = c.rating_max();
  init.init_prediction = c.init_prediction();
  init.clip = fmf_sgd::ClipMode::kEmbedding;
  return init;
}

// Per-coordinate range of a sum of cohort_size uploads of either phase (dp/fixed_point.h).
double SumRangeOf(const v1::LflSgdmfConfig& c) {
  const auto n = static_cast<double>(c.cohort_size());
  const double deterministic = n * (c.scale() * fmf_sgd::RatingGradientBound(c.rating_max()) + 1);
  const double per_user_variance =
      Noisy(c) ? Phase0Variance(c) + (HasPhase1(c) ? Phase1Variance(c, c.min_contributors()) : 0)
               : 0;
  return dp::SumRange(deterministic, n * per_user_variance * c.scale() * c.scale(),
                      c.wrap_probability(), UploadLength(c));
}

}  // namespace

absl::Status ValidateConfig(const v1::LflSgdmfConfig& c) {
  if (c.num_users() < 1) return Bad("num_users", c.num_users(), ">= 1");
  if (c.num_items() < 1) return Bad("num_items", c.num_items(), ">= 1");
  if (c.rank() < 1) return Bad("rank", c.rank(), ">= 1");
  if (!(c.rating_max() > 0) || !std::isfinite(c.rating_max())) {
    return Bad("rating_max", c.rating_max(), "finite > 0");
  }
  if (c.rounds() < 1) return Bad("rounds", c.rounds(), ">= 1");
  if (c.cohort_size() < 1 || c.cohort_size() > c.num_users()) {
    return Bad("cohort_size", c.cohort_size(), "in [1, num_users]");
  }
  if (!(c.omega() >= 0 && c.omega() < 1)) return Bad("omega", c.omega(), "in [0, 1)");
  if (c.min_contributors() != MinContributors(c.cohort_size(), c.omega())) {
    return Bad("min_contributors", c.min_contributors(),
               absl::StrCat("ceil((1 - omega) cohort_size) = ",
                            MinContributors(c.cohort_size(), c.omega())));
  }
  if (c.noise() == v1::LFL_NOISE_UNSPECIFIED || !v1::LflNoiseMode_IsValid(c.noise())) {
    return Bad("noise", c.noise(), "none, single, two-phase-paper or two-phase");
  }
  if (Noisy(c)) {
    if (!(c.epsilon() > 0) || !std::isfinite(c.epsilon())) {
      return Bad("epsilon", c.epsilon(), "finite > 0");
    }
    if (!(c.delta() >= 0 && c.delta() < 1)) return Bad("delta", c.delta(), "in [0, 1)");
    if (!(c.noise_std() >= 0) || !std::isfinite(c.noise_std())) {
      return Bad("noise_std", c.noise_std(), "finite >= 0 (0 until calibrated)");
    }
  }
  if (!(c.learning_rate() > 0) || !std::isfinite(c.learning_rate())) {
    return Bad("learning_rate", c.learning_rate(), "finite > 0");
  }
  if (c.pretrain_epochs() < 0) return Bad("pretrain_epochs", c.pretrain_epochs(), ">= 0");
  if (!(c.pretrain_learning_rate() >= 0) || !std::isfinite(c.pretrain_learning_rate())) {
    return Bad("pretrain_learning_rate", c.pretrain_learning_rate(), "finite >= 0");
  }
  if (!(c.init_prediction() > 0) || !(c.init_prediction() <= c.rating_max())) {
    return Bad("init_prediction", c.init_prediction(), "in (0, rating_max]");
  }
  if (!(c.scale() >= 1) || !std::isfinite(c.scale())) return Bad("scale", c.scale(), ">= 1");
  if (!(c.wrap_probability() > 0 && c.wrap_probability() < 1)) {
    return Bad("wrap_probability", c.wrap_probability(), "in (0, 1)");
  }
  if (!(c.score_lambda() > 0) || !(c.score_kappa() >= 0)) {
    return Bad("score_lambda", c.score_lambda(), "> 0 (and score_kappa >= 0)");
  }
  if (c.simulation_summed_noise() && !Noisy(c)) {
    return absl::InvalidArgumentError(
        "lfl-sgdmf config: simulation_summed_noise needs noise (noise=none has none to sum)");
  }
  return absl::OkStatus();
}

absl::string_view NoiseModeName(v1::LflNoiseMode mode) {
  switch (mode) {
    case v1::LFL_NOISE_NONE:
      return "none";
    case v1::LFL_NOISE_SINGLE:
      return "single";
    case v1::LFL_NOISE_TWO_PHASE_PAPER:
      return "two-phase-paper";
    case v1::LFL_NOISE_TWO_PHASE:
      return "two-phase";
    default:
      return "unspecified";
  }
}

absl::StatusOr<v1::LflNoiseMode> ParseNoiseMode(absl::string_view name) {
  for (v1::LflNoiseMode mode : {v1::LFL_NOISE_NONE, v1::LFL_NOISE_SINGLE,
                                v1::LFL_NOISE_TWO_PHASE_PAPER, v1::LFL_NOISE_TWO_PHASE}) {
    if (name == NoiseModeName(mode)) return mode;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "lfl-sgdmf noise '", name, "': expected none, single, two-phase-paper or two-phase"));
}

bool HasPhase1(const v1::LflSgdmfConfig& c) {
  return c.noise() == v1::LFL_NOISE_TWO_PHASE || c.noise() == v1::LFL_NOISE_TWO_PHASE_PAPER;
}

int64_t MinContributors(int64_t cohort_size, double omega) {
  const auto n_min =
      static_cast<int64_t>(std::ceil((1 - omega) * static_cast<double>(cohort_size)));
  return std::max<int64_t>(n_min, 1);
}

int64_t UploadLength(const v1::LflSgdmfConfig& c) {
  return static_cast<int64_t>(c.num_items()) * c.rank();
}

double Sensitivity(const v1::LflSgdmfConfig& c) {
  return fmf_sgd::RatingGradientBound(c.rating_max()) +
         std::sqrt(static_cast<double>(UploadLength(c))) / c.scale();
}

double Phase0Variance(const v1::LflSgdmfConfig& c) {
  if (!Noisy(c)) return 0;
  return PhaseShare(c) * c.noise_std() * c.noise_std() / static_cast<double>(c.min_contributors());
}

double Phase1Variance(const v1::LflSgdmfConfig& c, int64_t phase1_survivors) {
  if (!HasPhase1(c)) return 0;
  return PhaseShare(c) * c.noise_std() * c.noise_std() / static_cast<double>(phase1_survivors);
}

double ReplacementWeight(const v1::LflSgdmfConfig& c, int64_t phase1_survivors,
                         int64_t phase2_survivors) {
  if (c.noise() == v1::LFL_NOISE_TWO_PHASE_PAPER) return 1;
  // Cov(S_1 noise, S_2) = -n_2 v_1, Var(S_2) = n_2 (v_1 + v_2): the regression coefficient of the
  // S_1 noise on S_2 is -v_1 / (v_1 + v_2), so S_1 + lambda S_2 removes the most.
  if (phase2_survivors == 0) return 0;
  const double v1 = Phase0Variance(c);
  const double v2 = Phase1Variance(c, phase1_survivors);
  return v1 + v2 > 0 ? v1 / (v1 + v2) : 1;
}

double ViewNoiseStddev(const v1::LflSgdmfConfig& c, int64_t phase1_survivors,
                       std::optional<int64_t> phase2_survivors) {
  const double v1 = Phase0Variance(c);
  const double total1 = static_cast<double>(phase1_survivors) * v1;
  if (!phase2_survivors.has_value()) return std::sqrt(total1);
  const auto n2 = static_cast<double>(*phase2_survivors);
  // Arguments are valid by construction (n_2 <= n_1, variances >= 0).
  return *dp::TwoRoundReplacementNoiseStddev(total1, n2 * v1,
                                             n2 * Phase1Variance(c, phase1_survivors));
}

dp::PrivacyBudget Budget(const v1::LflSgdmfConfig& c) {
  return dp::PrivacyBudget::FromEpsilonDelta(c.epsilon(), c.delta());
}

absl::StatusOr<double> CalibrateNoiseStddev(const v1::LflSgdmfConfig& c) {
  absl::StatusOr<double> z = dp::CalibrateGaussianNoiseMultiplier(Budget(c), /*sampling_rate=*/1,
                                                                  c.rounds(), dp::DefaultOrders());
  if (!z.ok()) return z.status();
  return *z * Sensitivity(c);
}

namespace {

// A Gaussian release of `precision` (1 / variance of the view, in units of the sensitivity: its
// RDP is alpha / 2 times that) after phase `phase` of `round`.
dp::LedgerEntry ViewEntry(const v1::LflSgdmfConfig& c, int64_t round, int phase,
                          absl::string_view mechanism, int64_t phase1_survivors, double view_std,
                          double precision, const std::vector<double>& orders) {
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = std::string(mechanism);
  entry.params = {{"noise_std", c.noise_std()},
                  {"phase", phase},
                  {"phase1_survivors", static_cast<double>(phase1_survivors)},
                  {"view_noise_std", view_std},
                  {"l2_sensitivity", Sensitivity(c)}};
  entry.participants = phase1_survivors;
  entry.n_min = std::min(phase1_survivors, c.min_contributors());
  entry.unit = dp::PrivacyUnit::kUser;
  entry.rdp.reserve(orders.size());
  for (double alpha : orders) entry.rdp.push_back(alpha / 2 * std::max(precision, 0.0));
  return entry;
}

// The view's noise std after the round's last phase, nobody lost in phase 1.
double RoundViewStddev(const v1::LflSgdmfConfig& c, int64_t phase1_survivors) {
  return ViewNoiseStddev(c, phase1_survivors,
                         HasPhase1(c) ? std::optional<int64_t>(phase1_survivors) : std::nullopt);
}

}  // namespace

absl::StatusOr<std::optional<dp::LedgerEntry>> PhaseRelease(const v1::LflSgdmfConfig& c,
                                                            int64_t round, int phase,
                                                            int64_t phase1_survivors,
                                                            const std::vector<double>& orders) {
  if (!Noisy(c)) return std::nullopt;
  const double delta_sq = Sensitivity(c) * Sensitivity(c);
  const double view1 = ViewNoiseStddev(c, phase1_survivors, std::nullopt);
  // The pair's precision is phase 0's plus the increment phase 1 charges.
  const double pair = ViewNoiseStddev(c, phase1_survivors, phase1_survivors);
  double precision = delta_sq / (view1 * view1);
  if (phase == 1) precision = delta_sq / (pair * pair) - precision;
  return ViewEntry(c, round, phase, phase == 0 ? "lfl-gaussian" : "lfl-noise-replacement",
                   phase1_survivors, phase == 0 ? view1 : pair, precision, orders);
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundReleaseBound(
    const v1::LflSgdmfConfig& c, int64_t round, const std::vector<double>& orders) {
  if (!Noisy(c)) return std::nullopt;
  const double view = RoundViewStddev(c, c.min_contributors());
  return ViewEntry(c, round, /*phase=*/0, "lfl-round-bound", c.min_contributors(), view,
                   Sensitivity(c) * Sensitivity(c) / (view * view), orders);
}

absl::StatusOr<int> SumBits(const v1::LflSgdmfConfig& c) {
  return dp::ModulusBitsForRange(SumRangeOf(c));
}

absl::StatusOr<std::vector<uint64_t>> EncodeUpload(const v1::LflSgdmfConfig& c,
                                                   const Eigen::Ref<const Eigen::VectorXd>& values,
                                                   dp::Rng& rng) {
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  std::vector<uint64_t> out(static_cast<size_t>(values.size()));
  constexpr double kLimit = 4611686018427387904.0;  // 2^62: StochasticRound's domain
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    const double y = values[k] * c.scale();
    if (!(std::abs(y) < kLimit)) {
      return absl::InvalidArgumentError(
          absl::StrCat("lfl-sgdmf upload: coordinate ", k, " is ", values[k]));
    }
    out[static_cast<size_t>(k)] = dp::ReduceModPow2(dp::StochasticRound(y, rng), *bits);
  }
  return out;
}

absl::StatusOr<Eigen::VectorXd> DecodeSum(const v1::LflSgdmfConfig& c,
                                          absl::Span<const uint64_t> sum) {
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  return dp::DecodeCheckedSum(sum, *bits, SumRangeOf(c), c.scale());
}

Eigen::MatrixXd InitialItemFactors(const v1::LflSgdmfConfig& c) {
  dp::Rng rng(c.seed(), 0);
  // The configuration was validated: the initialization cannot fail.
  return *fmf_sgd::InitialEmbeddings(c.num_items(), InitConfig(c), rng);
}

Eigen::VectorXd InitialUserFactor(const v1::LflSgdmfConfig& c, uint32_t participant_id) {
  dp::Rng rng(c.seed(), uint64_t{participant_id} + 1);
  return fmf_sgd::InitialEmbeddings(1, InitConfig(c), rng)->row(0).transpose();
}

Eigen::VectorXd SummedPhase0Noise(const v1::LflSgdmfConfig& c, int64_t contributors, int64_t dim,
                                  dp::Rng& rng) {
  const double std = std::sqrt(static_cast<double>(contributors) * Phase0Variance(c));
  Eigen::VectorXd noise(dim);
  for (Eigen::Index k = 0; k < dim; ++k) noise[k] = std * dp::StandardNormal(rng);
  return noise;
}

Eigen::VectorXd SummedPhase1Noise(const v1::LflSgdmfConfig& c,
                                  const Eigen::Ref<const Eigen::VectorXd>& phase0_noise,
                                  int64_t phase1_survivors, int64_t phase2_survivors,
                                  dp::Rng& rng) {
  const auto n1 = static_cast<double>(phase1_survivors);
  const auto n2 = static_cast<double>(phase2_survivors);
  // Given Xi = the sum of n_1 i.i.d. N(0, v_1) shares, the sum of n_2 of them is
  // N(Xi n_2 / n_1, v_1 n_2 (n_1 - n_2) / n_1); the replacements add n_2 fresh N(0, v_2).
  const double kept_std = std::sqrt(Phase0Variance(c) * n2 * (n1 - n2) / n1);
  const double fresh_std = std::sqrt(n2 * Phase1Variance(c, phase1_survivors));
  Eigen::VectorXd noise(phase0_noise.size());
  for (Eigen::Index k = 0; k < noise.size(); ++k) {
    const double removed = phase0_noise[k] * (n2 / n1) + kept_std * dp::StandardNormal(rng);
    noise[k] = -removed + fresh_std * dp::StandardNormal(rng);
  }
  return noise;
}

}  // namespace fedmf::algorithms::lfl_sgdmf
