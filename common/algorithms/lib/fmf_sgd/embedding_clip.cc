#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/clipping.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

absl::Status CheckRatingMax(double rating_max) {
  if (!std::isfinite(rating_max) || !(rating_max > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedding clipping: rating_max R=", rating_max, " must be finite > 0"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> ProjectEmbedding(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 double rating_max) {
  if (absl::Status s = CheckRatingMax(rating_max); !s.ok()) return s;
  if (!x.allFinite()) {
    return absl::InvalidArgumentError("embedding clipping: an entry is NaN or infinite");
  }
  // The orthant first, then the ball: the ball's scaling keeps entries >= 0, and the result is
  // the projection onto the intersection (checked against Dykstra's algorithm in the tests).
  return dp::ClipL2(x.cwiseMax(0.0), std::sqrt(rating_max));
}

absl::Status ProjectRows(Eigen::MatrixXd& embeddings, double rating_max) {
  for (Eigen::Index i = 0; i < embeddings.rows(); ++i) {
    absl::StatusOr<Eigen::VectorXd> row =
        ProjectEmbedding(embeddings.row(i).transpose(), rating_max);
    if (!row.ok()) return row.status();
    embeddings.row(i) = row->transpose();
  }
  return absl::OkStatus();
}

double RatingGradientBound(double rating_max) { return 2 * std::pow(rating_max, 1.5); }

}  // namespace fedmf::algorithms::fmf_sgd
