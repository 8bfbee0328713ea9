#include "server/evaluation.h"

#include <memory>
#include <vector>

#include "common/algorithms/registry.h"

namespace fedmf::server {

absl::StatusOr<Evaluation> Evaluate(const algorithms::Updater& updater,
                                    const data::TrainTest& split) {
  absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      algorithms::MakeContributor(*plan);
  if (!contributor.ok()) return contributor.status();
  std::vector<Eigen::VectorXd> factors(static_cast<size_t>(split.train.num_users()));
  for (int32_t u = 0; u < split.train.num_users(); ++u) {
    absl::StatusOr<Eigen::VectorXd> f = (*contributor)->UserFactor(split.train.user(u));
    if (!f.ok()) return f.status();
    factors[static_cast<size_t>(u)] = std::move(*f);
  }
  const mf::FactorMatrix& items = (*contributor)->item_factors();
  const metrics::UserScorer scorer = [&](int32_t user, absl::Span<double> scores) {
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        items * factors[static_cast<size_t>(user)];
  };
  return Evaluation{
      metrics::EvaluateErrors(split.test, scorer),
      metrics::EvaluateRanking(split.train, split.test, scorer, metrics::kDpmfRpRanking)};
}

}  // namespace fedmf::server
