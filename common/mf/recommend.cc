#include "common/mf/recommend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace fedmf::mf {

absl::StatusOr<std::vector<Recommendation>> RecommendTopN(absl::Span<const double> scores,
                                                          absl::Span<const int32_t> exclude,
                                                          int n) {
  const int64_t m = static_cast<int64_t>(scores.size());
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("RecommendTopN: n=", n, " < 1"));
  std::vector<bool> excluded(static_cast<size_t>(m), false);
  for (const int32_t item : exclude) {
    if (item < 0 || item >= m) {
      return absl::InvalidArgumentError(
          absl::StrCat("RecommendTopN: excluded item ", item, " is outside [0, ", m, ")"));
    }
    excluded[static_cast<size_t>(item)] = true;
  }
  std::vector<Recommendation> candidates;
  candidates.reserve(static_cast<size_t>(m));
  for (size_t j = 0; j < scores.size(); ++j) {
    if (excluded[j]) continue;
    const double s = std::isnan(scores[j]) ? -std::numeric_limits<double>::infinity() : scores[j];
    candidates.push_back({static_cast<int32_t>(j), s});
  }
  const size_t keep = std::min(candidates.size(), static_cast<size_t>(n));
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep),
                    candidates.end(), [](const Recommendation& a, const Recommendation& b) {
                      return a.score != b.score ? a.score > b.score : a.item < b.item;
                    });
  candidates.resize(keep);
  return candidates;
}

}  // namespace fedmf::mf
