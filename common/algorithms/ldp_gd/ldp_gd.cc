#include "common/algorithms/ldp_gd/ldp_gd.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/algorithms/public_init.h"
#include "common/dp/privacy_cost.h"
#include "common/util/positive_finite.h"

namespace fedmf::algorithms::ldp_gd {

namespace {

constexpr uint64_t kMinusOne = (uint64_t{1} << kBits) - 1;

absl::Status Bad(absl::string_view field, double value, absl::string_view need) {
  return absl::InvalidArgumentError(
      absl::StrCat("ldp-gd config: ", field, "=", value, ", need ", need));
}

bool NonNegative(double x) { return std::isfinite(x) && x >= 0; }

// SplitMix64's finalizer: public seeds of different uses that share no Rng key.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

absl::string_view AlgorithmName(const v1::LdpGdConfig& config) {
  return config.projection() == v1::LDP_PROJECTION_NONE ? kPrivateGd : kPrivateGdDr;
}

absl::Status ValidateConfig(const v1::LdpGdConfig& c) {
  if (c.num_users() < 1) return Bad("num_users", static_cast<double>(c.num_users()), ">= 1");
  if (c.num_items() < 2) return Bad("num_items", c.num_items(), ">= 2");
  if (c.rank() < 1 || c.rank() > 1000) return Bad("rank", c.rank(), "in [1, 1000]");
  if (c.rounds() < 1 || c.rounds() > 100000) {
    return Bad("rounds", static_cast<double>(c.rounds()), "k in [1, 100000]");
  }
  if (!IsPositiveFinite(c.epsilon())) return Bad("epsilon", c.epsilon(), "> 0");
  if (!IsPositiveFinite(c.learning_rate())) return Bad("learning_rate", c.learning_rate(), "> 0");
  if (!NonNegative(c.lambda_u())) return Bad("lambda_u", c.lambda_u(), ">= 0");
  if (!NonNegative(c.lambda_v())) return Bad("lambda_v", c.lambda_v(), ">= 0");
  if (!IsPositiveFinite(c.init_scale())) return Bad("init_scale", c.init_scale(), "> 0");
  if (!IsPositiveFinite(c.score_lambda())) return Bad("score_lambda", c.score_lambda(), "> 0");
  if (!NonNegative(c.score_kappa())) return Bad("score_kappa", c.score_kappa(), ">= 0");
  if (absl::Status s = RatingScaleOf(c).Validate(); !s.ok()) return s;
  switch (c.projection()) {
    case v1::LDP_PROJECTION_NONE:
      if (c.projection_dim() != 0) {
        return Bad("projection_dim", c.projection_dim(), "0 without a projection");
      }
      break;
    case v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE:
    case v1::LDP_PROJECTION_FRESH_TRANSPOSE:
      if (c.projection_dim() < 1 || c.projection_dim() >= c.num_items()) {
        return Bad("projection_dim", c.projection_dim(), "q in [1, num_items)");
      }
      if (c.entries() != v1::LDP_ENTRIES_GAUSSIAN && c.entries() != v1::LDP_ENTRIES_RADEMACHER) {
        return Bad("entries", c.entries(), "gaussian or rademacher");
      }
      break;
    default:
      return Bad("projection", c.projection(), "none, fixed-pseudoinverse or fresh-transpose");
  }
  if (c.cohort_size() < 1 || c.cohort_size() > c.num_users()) {
    return Bad("cohort_size", static_cast<double>(c.cohort_size()), "in [1, num_users]");
  }
  if (c.min_contributors() < 1 || c.min_contributors() > c.cohort_size()) {
    return Bad("min_contributors", static_cast<double>(c.min_contributors()),
               "in [1, cohort_size]");
  }
  if (c.cohort_size() >= (int64_t{1} << (kBits - 1))) {
    return Bad("cohort_size", static_cast<double>(c.cohort_size()), "< 2^31 (sums in Z_2^32)");
  }
  return absl::OkStatus();
}

int64_t ReportRows(const v1::LdpGdConfig& config) {
  return config.projection() == v1::LDP_PROJECTION_NONE ? config.num_items()
                                                        : config.projection_dim();
}

int64_t ReportDim(const v1::LdpGdConfig& config) { return ReportRows(config) * config.rank(); }

double RoundEpsilon(const v1::LdpGdConfig& config) {
  return dp::SplitPureEpsilon(config.epsilon(), config.rounds());
}

double UserStep(const v1::LdpGdConfig& config, int64_t round) {
  return config.learning_rate() / static_cast<double>(round + 1);
}

double ItemStep(const v1::LdpGdConfig& config, int64_t round) {
  const double k = static_cast<double>(config.rounds());
  return UserStep(config, round) / (config.correction() ? k * k : 1.0);
}

dp::LedgerEntry RoundRelease(const v1::LdpGdConfig& config, int64_t round, int64_t participants) {
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = "binary-rr";
  entry.params = {{"epsilon", RoundEpsilon(config)},
                  {"coordinates", static_cast<double>(ReportDim(config))}};
  entry.participants = participants;
  entry.n_min = 1;
  entry.unit = dp::PrivacyUnit::kUser;
  entry.pure_epsilon = RoundEpsilon(config);
  return entry;
}

absl::StatusOr<std::shared_ptr<const dp::GaussianProjection>> RoundProjection(
    const v1::LdpGdConfig& config, int64_t round) {
  if (config.projection() == v1::LDP_PROJECTION_NONE) return nullptr;
  const bool fresh = config.projection() == v1::LDP_PROJECTION_FRESH_TRANSPOSE;
  const uint64_t seed = Mix(config.seed() ^ Mix(fresh ? static_cast<uint64_t>(round) + 1 : 0));
  const dp::ProjectionEntries entries = config.entries() == v1::LDP_ENTRIES_RADEMACHER
                                            ? dp::ProjectionEntries::kRademacher
                                            : dp::ProjectionEntries::kGaussian;
  // The last Phi built, while anything holds it; built under the lock, so that concurrent
  // callers wait for one instead of each building their own.
  struct Cache {
    std::mutex mu;
    std::tuple<int64_t, int64_t, uint64_t, dp::ProjectionEntries> key;
    std::weak_ptr<const dp::GaussianProjection> phi;
  };
  static Cache& cache = *new Cache();  // never destroyed: no order-of-destruction hazard
  const decltype(Cache::key) key{config.num_items(), config.projection_dim(), seed, entries};
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.key == key) {
    if (std::shared_ptr<const dp::GaussianProjection> phi = cache.phi.lock()) return phi;
  }
  absl::StatusOr<dp::GaussianProjection> phi =
      dp::GaussianProjection::Create(config.num_items(), config.projection_dim(), seed, entries);
  if (!phi.ok()) return phi.status();
  auto shared = std::make_shared<const dp::GaussianProjection>(*std::move(phi));
  cache.key = key;
  cache.phi = shared;
  return shared;
}

Eigen::MatrixXd InitialItemFactors(const v1::LdpGdConfig& config) {
  return PublicNormalMatrix(config.num_items(), config.rank(), config.init_scale(), config.seed(),
                            0);
}

Eigen::VectorXd InitialUserFactor(const v1::LdpGdConfig& config, uint32_t participant_id) {
  return PublicNormalMatrix(config.rank(), 1, config.init_scale(), config.seed(), participant_id)
      .col(0);
}

ContributionVector EncodeReport(const dp::BinaryRrReport& report) {
  return ContributionVector::Sparse({static_cast<uint64_t>(report.index)},
                                    {report.positive ? uint64_t{1} : kMinusOne});
}

absl::Status CheckReport(const ContributionVector& vector, int64_t dim) {
  if (!vector.is_sparse() || vector.indices().size() != 1 || vector.values().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ldp-gd report: a report is exactly one coordinate; got a ",
        vector.is_sparse() ? "sparse" : "dense", " vector of ", vector.values().size(), " values"));
  }
  if (vector.indices()[0] >= static_cast<uint64_t>(dim)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ldp-gd report: coordinate ", vector.indices()[0], " outside [0, ", dim, ")"));
  }
  if (vector.values()[0] != 1 && vector.values()[0] != kMinusOne) {
    return absl::InvalidArgumentError(absl::StrCat("ldp-gd report: value ", vector.values()[0],
                                                   " is neither +B (1) nor -B (2^32 - 1)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Eigen::MatrixXd> DecodeMeanReport(const v1::LdpGdConfig& config,
                                                 absl::Span<const uint64_t> sum,
                                                 int64_t contributors) {
  const int64_t dim = ReportDim(config);
  if (static_cast<int64_t>(sum.size()) != dim || contributors < 1) {
    return absl::InvalidArgumentError(absl::StrCat("ldp-gd: a sum of ", sum.size(), " values from ",
                                                   contributors, " reports, expected ", dim,
                                                   " values from at least one"));
  }
  const double scale =
      dp::BinaryRrMagnitude(dim, RoundEpsilon(config)) / static_cast<double>(contributors);
  const int d = config.rank();
  Eigen::MatrixXd mean(ReportRows(config), d);
  int64_t reports = 0;
  for (int64_t s = 0; s < dim; ++s) {
    const uint64_t v = sum[s] & kMinusOne;
    // Two's complement in Z_{2^32}: the count of +1 minus the count of -1 reports.
    const int64_t count = v >= (uint64_t{1} << (kBits - 1))
                              ? static_cast<int64_t>(v) - (int64_t{1} << kBits)
                              : static_cast<int64_t>(v);
    reports += count < 0 ? -count : count;
    mean(s / d, s % d) = static_cast<double>(count) * scale;
  }
  if (reports > contributors) {
    return absl::InvalidArgumentError(absl::StrCat("ldp-gd: the sum counts at least ", reports,
                                                   " reports from ", contributors,
                                                   " contributors"));
  }
  return mean;
}

}  // namespace fedmf::algorithms::ldp_gd
