#include "common/algorithms/scorer_evaluation.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {
namespace {

absl::Span<const double> Column(const Eigen::MatrixXd& m, Eigen::Index c) {
  return absl::Span<const double>(m.col(c).data(), static_cast<size_t>(m.rows()));
}

}  // namespace

absl::StatusOr<std::vector<metrics::MetricSums>> EvaluateScorer(
    const Scorer& model, const data::TrainTest& split,
    absl::Span<const metrics::RankingOptions> rankings, const ScorerEvaluationOptions& options) {
  for (const metrics::RankingOptions& ranking : rankings) {
    if (absl::Status s = ranking.Validate(); !s.ok()) return s;
  }
  if (options.block_users < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("block of ", options.block_users, " users: needs at least 1"));
  }
  const data::RatingsDataset& train = split.train;
  const data::RatingsDataset& test = split.test;
  if (train.num_users() != test.num_users() || train.num_items() != test.num_items()) {
    return absl::InvalidArgumentError("train and test differ in users or items");
  }
  if (model.num_items() != train.num_items()) {
    return absl::InvalidArgumentError(absl::StrCat("the model scores ", model.num_items(),
                                                   " items, the data has ", train.num_items()));
  }
  std::vector<int32_t> users;
  for (int32_t u = 0; u < test.num_users(); ++u) {
    if (test.user(u).size() > 0) users.push_back(u);
  }
  const double fallback_mean = train.MeanRating();
  const size_t num_rankings = rankings.size();
  std::vector<metrics::MetricSums> sums(num_rankings);
  const int64_t total = static_cast<int64_t>(users.size());
  for (int64_t begin = 0; begin < total; begin += options.block_users) {
    const int64_t count = std::min<int64_t>(options.block_users, total - begin);
    std::vector<data::RatingRow> rows;
    for (int64_t b = 0; b < count; ++b) rows.push_back(train.user(users[begin + b]));
    absl::StatusOr<Eigen::MatrixXd> scores = model.ScoresBatch(rows);
    if (!scores.ok()) return scores.status();
    if (scores->rows() != train.num_items() || scores->cols() != count) {
      return absl::InternalError(absl::StrCat("the model scored ", scores->cols(), " users x ",
                                              scores->rows(), " items for ", count, " x ",
                                              train.num_items()));
    }
    std::vector<metrics::UserRanking> ranked(static_cast<size_t>(count) * num_rankings);
    std::vector<metrics::UserErrors> errors(static_cast<size_t>(count));
    std::vector<absl::Status> failed(static_cast<size_t>(count));
#pragma omp parallel
    {
      std::vector<int32_t> scratch;
#pragma omp for schedule(dynamic, 8)
      for (int64_t b = 0; b < count; ++b) {
        const int32_t u = users[begin + b];
        for (size_t r = 0; r < num_rankings; ++r) {
          ranked[static_cast<size_t>(b) * num_rankings + r] = metrics::EvaluateUserRanking(
              rows[b], test.user(u), Column(*scores, b), rankings[r], &scratch);
        }
        if (model.predicts_ratings()) {
          absl::StatusOr<Eigen::VectorXd> predicted = model.PredictRatings(rows[b], fallback_mean);
          if (predicted.ok() && predicted->size() != train.num_items()) {
            predicted =
                absl::InternalError(absl::StrCat("the model predicted ", predicted->size(),
                                                 " ratings for its ", train.num_items(), " items"));
          }
          if (predicted.ok()) {
            errors[b] = metrics::EvaluateUserErrors(
                test.user(u), absl::Span<const double>(predicted->data(), predicted->size()));
          } else {
            failed[b] = predicted.status();
          }
        }
      }
    }
    for (int64_t b = 0; b < count; ++b) {
      if (!failed[b].ok()) return failed[b];
      for (size_t r = 0; r < num_rankings; ++r) {
        if (model.predicts_ratings()) sums[r].Add(errors[b]);
        sums[r].Add(ranked[static_cast<size_t>(b) * num_rankings + r], /*has_test=*/true);
      }
    }
    if (options.progress) options.progress(begin + count, total);
  }
  return sums;
}

}  // namespace fedmf::algorithms
