#include "common/algorithms/dp_als/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"

namespace fedmf::algorithms::dp_als {
namespace {

// Appends upper(u u^T) (row by row) times `weight` at coordinates offset, offset + 1, ...
void AppendGram(const Eigen::VectorXd& u, double weight, int64_t offset, SparseStatistics& out,
                std::vector<double>& values) {
  const Eigen::Index k = u.size();
  for (Eigen::Index a = 0; a < k; ++a) {
    for (Eigen::Index b = a; b < k; ++b) {
      out.indices.push_back(static_cast<uint64_t>(offset++));
      values.push_back(weight * u[a] * u[b]);
    }
  }
}

}  // namespace

Eigen::VectorXd ClipFactor(const Eigen::VectorXd& u, double bound) {
  const double norm = u.norm();
  if (norm <= bound) return u;
  // Rounding may leave the scaled norm a hair above the bound: scale by a slightly smaller ratio.
  return u * (bound / norm * (1 - 1e-12));
}

std::vector<int64_t> CappedPositions(int64_t rated, int32_t cap, dp::Rng& rng) {
  std::vector<int64_t> positions(static_cast<size_t>(rated));
  std::iota(positions.begin(), positions.end(), 0);
  if (rated <= cap) return positions;
  // Partial Fisher-Yates: the first `cap` entries are a uniform sample without replacement.
  for (int64_t i = 0; i < cap; ++i) {
    const auto span = static_cast<uint64_t>(rated - i);
    // Rejection keeps the draw uniform on [0, span).
    const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t r = rng();
    while (r >= limit) r = rng();
    std::swap(positions[static_cast<size_t>(i)],
              positions[static_cast<size_t>(i + static_cast<int64_t>(r % span))]);
  }
  positions.resize(static_cast<size_t>(cap));
  std::sort(positions.begin(), positions.end());
  return positions;
}

absl::StatusOr<SparseStatistics> UserStatistics(const v1::DpAlsConfig& config,
                                                const Eigen::VectorXd& factor,
                                                const data::RatingRow& ratings, dp::Rng& rng) {
  if (factor.size() != config.rank() || !factor.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat("dp-als: user factor of size ", factor.size(),
                                                   " (rank ", config.rank(), ") or not finite"));
  }
  for (int64_t n = 0; n < ratings.size(); ++n) {
    const int32_t item = ratings.indices[n];
    if (item < 0 || item >= config.num_items()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-als: rated item ", item, " outside [0, ", config.num_items(), ")"));
    }
    if (!std::isfinite(ratings.ratings[n])) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-als: rating of item ", item, " is not finite"));
    }
  }
  const Eigen::VectorXd u = ClipFactor(factor, config.factor_bound());
  const Weights w = StatisticWeights(config);
  const int k = config.rank();
  SparseStatistics out;
  std::vector<double> values;
  AppendGram(u, w.global, 0, out, values);
  // The coordinates must increase: the chosen items in item order, each once.
  std::vector<int64_t> chosen = CappedPositions(ratings.size(), config.item_cap(), rng);
  std::sort(chosen.begin(), chosen.end(),
            [&](int64_t a, int64_t b) { return ratings.indices[a] < ratings.indices[b]; });
  for (size_t i = 1; i < chosen.size(); ++i) {
    if (ratings.indices[chosen[i]] == ratings.indices[chosen[i - 1]]) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-als: item ", ratings.indices[chosen[i]], " rated twice"));
    }
  }
  // scale_to_cap: c < C items fill the C items' share of the norm (config.h).
  const double fill =
      config.scale_to_cap() && !chosen.empty()
          ? std::sqrt(static_cast<double>(config.item_cap()) / static_cast<double>(chosen.size()))
          : 1.0;
  for (int64_t n : chosen) {
    const int64_t offset = ItemOffset(config, ratings.indices[n]);
    if (config.item_gram() == v1::DpAlsConfig::ITEM_GRAM_FULL) {
      AppendGram(u, fill * w.item_gram, offset, out, values);
    } else if (config.item_gram() == v1::DpAlsConfig::ITEM_GRAM_COUNT) {
      out.indices.push_back(static_cast<uint64_t>(offset));
      values.push_back(fill * w.item_gram);
    }
    const double r = std::clamp(static_cast<double>(ratings.ratings[n]), 0.0, config.rating_clip());
    for (int a = 0; a < k; ++a) {
      out.indices.push_back(static_cast<uint64_t>(offset + ItemGramSize(config) + a));
      values.push_back(fill * w.linear * r * u[a]);
    }
  }
  out.values =
      Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  return out;
}

Eigen::VectorXd Densify(const SparseStatistics& stats, int64_t length) {
  Eigen::VectorXd dense = Eigen::VectorXd::Zero(length);
  for (size_t i = 0; i < stats.indices.size(); ++i) {
    dense[static_cast<Eigen::Index>(stats.indices[i])] = stats.values[static_cast<Eigen::Index>(i)];
  }
  return dense;
}

}  // namespace fedmf::algorithms::dp_als
