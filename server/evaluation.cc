#include "server/evaluation.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/algorithms/registry.h"
#include "common/algorithms/scorer_evaluation.h"
#include "common/util/event_log.h"

namespace fedmf::server {
namespace {

// The first error of a model's answers. metrics' scorers cannot fail, so a failing user is
// scored NaN and Evaluate returns the kept error instead of the metrics.
class FirstError {
 public:
  void Keep(absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_.ok()) first_ = std::move(status);
  }
  absl::Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_;
  }

 private:
  std::mutex mu_;
  absl::Status first_;
};

// A line at most every kProgressInterval while the users are scored: a graph filter built from
// a federated P~ can take an hour on Gowalla, and the run would otherwise print nothing.
constexpr absl::Duration kProgressInterval = absl::Seconds(60);

algorithms::ScorerEvaluationOptions WithProgress() {
  algorithms::ScorerEvaluationOptions options;
  const absl::Time start = absl::Now();
  options.progress = [start, last = start](int64_t done, int64_t total) mutable {
    const absl::Time now = absl::Now();
    if (now - last < kProgressInterval && done < total) return;
    last = now;
    EventLine("evaluation_progress")
        .Add("users", done)
        .Add("of", total)
        .Add("seconds", absl::ToDoubleSeconds(now - start));
  };
  return options;
}

using Answer = std::function<absl::StatusOr<Eigen::VectorXd>(const data::RatingRow&)>;

// Scores user u with `answer` on u's train row (num_items values, checked by Evaluate).
metrics::UserScorer FromTrainRows(const data::RatingsDataset& train, Answer answer,
                                  FirstError& error) {
  return [&train, answer = std::move(answer), &error](int32_t user, absl::Span<double> out) {
    absl::StatusOr<Eigen::VectorXd> scores = answer(train.user(user));
    if (!scores.ok()) {
      error.Keep(scores.status());
      std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
      return;
    }
    std::copy(scores->begin(), scores->end(), out.begin());
  };
}

}  // namespace

absl::StatusOr<Evaluation> Evaluate(const algorithms::Updater& updater,
                                    const data::TrainTest& split) {
  absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
  if (!plan.ok()) return plan.status();
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindAlgorithm(plan->algorithm());
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      (*algorithm)->make_contributor(*plan);
  if (!contributor.ok()) return contributor.status();
  const algorithms::Scorer& model = (*contributor)->scorer();
  if (model.num_items() != split.train.num_items()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model scores ", model.num_items(), " items, the data has ", split.train.num_items()));
  }
  Evaluation result;
  if (!model.predicts_ratings()) {
    // Ranking only (the graph filters): scored in blocks of users, which a filter's products
    // serve far faster than its users one by one (scorer_evaluation.h).
    const metrics::RankingOptions ranking = (*algorithm)->ranking;
    absl::StatusOr<std::vector<metrics::MetricSums>> sums =
        algorithms::EvaluateScorer(model, split, absl::MakeConstSpan(&ranking, 1), WithProgress());
    if (!sums.ok()) return sums.status();
    result.ranking = sums->front().Ranking();
    return result;
  }
  FirstError error;
  const double fallback_mean = split.train.MeanRating();
  result.errors =
      metrics::EvaluateErrors(split.test, FromTrainRows(
                                              split.train,
                                              [&model, fallback_mean](const data::RatingRow& row) {
                                                return model.PredictRatings(row, fallback_mean);
                                              },
                                              error));
  result.ranking = metrics::EvaluateRanking(
      split.train, split.test,
      FromTrainRows(
          split.train, [&model](const data::RatingRow& row) { return model.Scores(row); }, error),
      (*algorithm)->ranking);
  if (absl::Status s = error.status(); !s.ok()) return s;
  return result;
}

}  // namespace fedmf::server
