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
  if (!std::isfinite(c.linear_shrinkage()) || c.linear_shrinkage() < 0) {
    return Bad("linear_shrinkage", c.linear_shrinkage(), ">= 0");
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
  if (c.item_gram() < v1::DpAlsConfig::ITEM_GRAM_FULL ||
      c.item_gram() > v1::DpAlsConfig::ITEM_GRAM_NONE) {
    return Bad("item_gram", c.item_gram(), "full (1), count (2) or none (3)");
  }
  if (Noisy(c)) {
    if (!Positive(c.epsilon())) return Bad("epsilon", c.epsilon(), "> 0");
    if (!(c.delta() > 0 && c.delta() < 1)) return Bad("delta", c.delta(), "in (0, 1)");
  }
  if (absl::Status s = Scale(c).Validate(); !s.ok()) return s;
  if (StatisticsLength(c) > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dp-als config: ", StatisticsLength(c), " statistics (m (K + k) + K with m=", c.num_items(),
        ", k=", c.rank(), ") exceed one message; lower rank"));
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

int64_t ItemGramSize(const v1::DpAlsConfig& config) {
  switch (config.item_gram()) {
    case v1::DpAlsConfig::ITEM_GRAM_FULL:
      return TriangleSize(config.rank());
    case v1::DpAlsConfig::ITEM_GRAM_COUNT:
      return 1;
    default:
      return 0;
  }
}

int64_t StatisticsLength(const v1::DpAlsConfig& config) {
  return ItemOffset(config, config.num_items());
}

int64_t ItemOffset(const v1::DpAlsConfig& config, int32_t item) {
  return TriangleSize(config.rank()) + int64_t{item} * (ItemGramSize(config) + config.rank());
}

Weights StatisticWeights(const v1::DpAlsConfig& c) {
  const double u2 = c.factor_bound() * c.factor_bound();
  const double cap = c.item_cap();
  const double s = c.gram_share();
  Weights w;
  w.linear = std::sqrt((1 - s) / (cap * c.rating_clip() * c.rating_clip() * u2));
  switch (c.item_gram()) {
    case v1::DpAlsConfig::ITEM_GRAM_FULL:
      w.global = w.item_gram = std::sqrt(s / (cap + 1)) / u2;
      break;
    case v1::DpAlsConfig::ITEM_GRAM_COUNT:
      w.global = std::sqrt(s / 2) / u2;
      w.item_gram = std::sqrt(s / (2 * cap));
      break;
    default:
      w.global = std::sqrt(s) / u2;
      break;
  }
  return w;
}

double CoordinateBound(const v1::DpAlsConfig& c) {
  const Weights w = StatisticWeights(c);
  const double u = c.factor_bound();
  const double fill = c.scale_to_cap() ? std::sqrt(static_cast<double>(c.item_cap())) : 1.0;
  const double item_gram =
      c.item_gram() == v1::DpAlsConfig::ITEM_GRAM_FULL ? w.item_gram * u * u : w.item_gram;
  return std::max({w.global * u * u, fill * item_gram, fill * w.linear * c.rating_clip() * u});
}

}  // namespace fedmf::algorithms::dp_als
