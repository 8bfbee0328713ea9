#include "common/algorithms/dp_als/config.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::dp_als {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("dp-als config: ", field, "=", value, ", expected ", expected));
}

bool Positive(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

absl::Status ValidateConfig(const v1::DpAlsConfig& c) {
  if (c.num_items() < 1) return Bad("num_items", c.num_items(), ">= 1");
  if (c.num_users() < 1) return Bad("num_users", c.num_users(), ">= 1");
  if (c.rank() < 1 || c.rank() > 1000) return Bad("rank", c.rank(), "in [1, 1000]");
  if (!Positive(c.lambda())) return Bad("lambda", c.lambda(), "> 0");
  if (!Positive(c.mu())) return Bad("mu", c.mu(), "> 0");
  if (!std::isfinite(c.kappa()) || c.kappa() < 0) return Bad("kappa", c.kappa(), ">= 0");
  if (c.iterations() < 1) return Bad("iterations", c.iterations(), ">= 1");
  if (c.item_cap() < 1) return Bad("item_cap", c.item_cap(), ">= 1");
  if (!Positive(c.factor_bound())) return Bad("factor_bound", c.factor_bound(), "> 0");
  if (!Positive(c.rating_clip())) return Bad("rating_clip", c.rating_clip(), "> 0");
  if (!(c.gram_share() > 0 && c.gram_share() < 1)) {
    return Bad("gram_share", c.gram_share(), "in (0, 1)");
  }
  if (!Positive(c.init_scale())) return Bad("init_scale", c.init_scale(), "> 0");
  switch (c.mechanism()) {
    case v1::DpAlsConfig::MECHANISM_DDG:
      if (!c.secure_aggregation()) {
        return absl::InvalidArgumentError(
            "dp-als config: mechanism ddg needs secure_aggregation=true (its noise is split "
            "among the users of a secure sum); use gaussian for clear uploads");
      }
      if (c.ddg_bits() < 8 || c.ddg_bits() > 61) return Bad("ddg_bits", c.ddg_bits(), "in [8, 61]");
      break;
    case v1::DpAlsConfig::MECHANISM_GAUSSIAN:
    case v1::DpAlsConfig::MECHANISM_NONE:
      if (c.fixed_point_bits() < 1 || c.fixed_point_bits() > 52) {
        return Bad("fixed_point_bits", c.fixed_point_bits(), "in [1, 52]");
      }
      break;
    default:
      return Bad("mechanism", c.mechanism(), "ddg (1), gaussian (2) or none (3)");
  }
  if (Noisy(c)) {
    if (!Positive(c.epsilon())) return Bad("epsilon", c.epsilon(), "> 0");
    if (!(c.delta() > 0 && c.delta() < 1)) return Bad("delta", c.delta(), "in (0, 1)");
  }
  if (absl::Status s = Scale(c).Validate(); !s.ok()) return s;
  if (StatisticsLength(c) > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dp-als config: ", StatisticsLength(c), " statistics (m (K + k) + K with m=",
        c.num_items(), ", k=", c.rank(), ") exceed one message; lower rank"));
  }
  return absl::OkStatus();
}

bool Noisy(const v1::DpAlsConfig& config) {
  return config.mechanism() != v1::DpAlsConfig::MECHANISM_NONE;
}

dp::PrivacyBudget Budget(const v1::DpAlsConfig& config) {
  return {.kind = dp::PrivacyBudget::Kind::kApproxDp,
          .epsilon = config.epsilon(),
          .delta = config.delta(),
          .unit = dp::PrivacyUnit::kUser};
}

RatingScale Scale(const v1::DpAlsConfig& config) {
  return {.min = config.rating_min(), .max = config.rating_max()};
}

int64_t TriangleSize(int rank) { return int64_t{rank} * (rank + 1) / 2; }

int64_t StatisticsLength(const v1::DpAlsConfig& config) {
  return ItemOffset(config, config.num_items());
}

int64_t ItemOffset(const v1::DpAlsConfig& config, int32_t item) {
  const int64_t tri = TriangleSize(config.rank());
  return tri + int64_t{item} * (tri + config.rank());
}

Weights StatisticWeights(const v1::DpAlsConfig& c) {
  const double u = c.factor_bound();
  const double cap = c.item_cap();
  return {.gram = std::sqrt(c.gram_share() / ((cap + 1) * u * u * u * u)),
          .linear = std::sqrt((1 - c.gram_share()) / (cap * c.rating_clip() * c.rating_clip() * u * u))};
}

double CoordinateBound(const v1::DpAlsConfig& c) {
  const Weights w = StatisticWeights(c);
  const double u = c.factor_bound();
  return std::max(w.gram * u * u, w.linear * c.rating_clip() * u);
}

}  // namespace fedmf::algorithms::dp_als
