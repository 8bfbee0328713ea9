#include "common/algorithms/dp_als/contributor.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/statistics.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/mf/weighted_solve.h"

namespace fedmf::algorithms::dp_als {

absl::StatusOr<std::unique_ptr<DpAlsContributor>> DpAlsContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::DpAlsModel> model = ParsePlanPayload<v1::DpAlsModel>(plan, kAlgorithmName);
  if (!model.ok()) return model.status();
  const v1::DpAlsConfig& c = model->config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(model->item_factors(), c.num_items(), c.rank(), "dp-als broadcast V");
  if (!v.ok()) return v.status();
  absl::StatusOr<StatisticsCodec> codec = StatisticsCodec::Create(c, model->noise());
  if (!codec.ok()) return codec.status();
  if (absl::Status s =
          CheckPlanEnvelope(plan, kAlgorithmName,
                            {.round = model->round(),
                             .phase = 0,
                             .length = codec->length(),
                             .bits = codec->bits(),
                             .combination = c.secure_aggregation() ? v1::COMBINATION_SECURE_SUM
                                                                   : v1::COMBINATION_CLEAR,
                             // Every user's noise share assumes the whole population in the sum.
                             .min_contributors_at_least = c.num_users(),
                             .max_contributors_at_most = c.num_users()});
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<DpAlsContributor>(
      new DpAlsContributor(c, model->round(), mf::FactorMatrix(*std::move(v)), *std::move(codec)));
}

DpAlsContributor::DpAlsContributor(v1::DpAlsConfig config, int64_t round, mf::FactorMatrix v,
                                   StatisticsCodec codec)
    : config_(std::move(config)),
      round_(round),
      scorer_(std::move(v), config_.lambda(), config_.kappa(), Scale(config_)),
      codec_(std::move(codec)) {}

absl::StatusOr<Contribution> DpAlsContributor::Contribute(const LocalData& data,
                                                          absl::string_view /*state*/,
                                                          dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError(
        "dp-als contributions are per user (each solves its own factor); a party cannot");
  }
  if (round_ >= config_.iterations()) {
    return absl::FailedPreconditionError(
        absl::StrCat("dp-als: the run's ", config_.iterations(), " rounds are over"));
  }
  // The factor of the objective the item side fits: ratings clamped to [0, R] as in b_j.
  std::vector<float> clamped(data.train.ratings.begin(), data.train.ratings.end());
  for (float& r : clamped) r = std::clamp(r, 0.0f, static_cast<float>(config_.rating_clip()));
  const data::RatingRow targets{
      .indices = data.train.indices, .ratings = clamped, .timestamps = data.train.timestamps};
  absl::StatusOr<Eigen::VectorXd> u = mf::SolveUserFactor(
      scorer_.item_factors(), scorer_.gram(), targets, config_.lambda(), config_.kappa());
  if (!u.ok()) return u.status();
  absl::StatusOr<SparseStatistics> stats = UserStatistics(config_, *u, data.train, rng);
  if (!stats.ok()) return stats.status();
  absl::StatusOr<ContributionVector> vector = codec_.Encode(*stats, rng);
  if (!vector.ok()) return vector.status();
  return Contribution{.vector = *std::move(vector), .state = {}, .user_factor = *std::move(u)};
}

}  // namespace fedmf::algorithms::dp_als
