#include "common/algorithms/lazy_scorer.h"

namespace fedmf::algorithms {

absl::StatusOr<const Scorer*> LazyScorer::Built() const {
  std::call_once(once_, [this] { built_ = build_(); });
  if (!built_.ok()) return built_.status();
  return built_->get();
}

absl::StatusOr<Eigen::VectorXd> LazyScorer::Scores(const data::RatingRow& ratings) const {
  absl::StatusOr<const Scorer*> s = Built();
  if (!s.ok()) return s.status();
  return (*s)->Scores(ratings);
}

absl::StatusOr<Eigen::MatrixXd> LazyScorer::ScoresBatch(
    absl::Span<const data::RatingRow> users) const {
  absl::StatusOr<const Scorer*> s = Built();
  if (!s.ok()) return s.status();
  return (*s)->ScoresBatch(users);
}

absl::StatusOr<Eigen::VectorXd> LazyScorer::PredictRatings(const data::RatingRow&, double) const {
  return absl::UnimplementedError("this model ranks items; it predicts no ratings");
}

}  // namespace fedmf::algorithms
