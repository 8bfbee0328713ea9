// Local top-N recommendation for one user from a ranking score per item (a model's Scores,
// common/algorithms/scorer.h): the items with the highest scores, excluding items the user already
// rated. Ranked exactly as common/metrics ranks (score descending, ties by item index ascending,
// NaN scores last), so a client's list is the one the ranking metrics evaluate.
#ifndef FEDMF_COMMON_MF_RECOMMEND_H_
#define FEDMF_COMMON_MF_RECOMMEND_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::mf {

struct Recommendation {
  int32_t item = 0;
  double score = 0;  // scores[item]; -infinity where that is NaN
};

// At most n >= 1 items (fewer when fewer are not excluded), best first, of the m =
// scores.size() items. `exclude` holds item indices in [0, m) in any order (repeats allowed).
// Errors: n < 1, an excluded index out of range.
absl::StatusOr<std::vector<Recommendation>> RecommendTopN(absl::Span<const double> scores,
                                                          absl::Span<const int32_t> exclude, int n);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_RECOMMEND_H_
