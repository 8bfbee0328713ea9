#include "common/algorithms/ldp_gd/central_gd.h"

#include "absl/strings/str_cat.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/ldp_gd/user_step.h"

namespace fedmf::algorithms::ldp_gd {

absl::StatusOr<CentralGdModel> TrainCentralGd(
    const data::RatingsDataset& train, const v1::LdpGdConfig& config,
    const std::function<void(int64_t, const Eigen::MatrixXd&)>& on_iteration) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (config.num_users() != train.num_users() || config.num_items() != train.num_items()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "central GD: the config has ", config.num_users(), " users and ", config.num_items(),
        " items, the data ", train.num_users(), " and ", train.num_items()));
  }
  const int n = train.num_users();
  CentralGdModel model{InitialItemFactors(config), Eigen::MatrixXd(n, config.rank())};
  for (int i = 0; i < n; ++i) {
    if (absl::Status s = CheckRatings(train.user(i), config.num_items()); !s.ok()) return s;
    model.user_factors.row(i) = InitialUserFactor(config, static_cast<uint32_t>(i + 1));
  }
  for (int64_t t = 0; t < config.rounds(); ++t) {
    Eigen::MatrixXd gradient = Eigen::MatrixXd::Zero(config.num_items(), config.rank());
    for (int i = 0; i < n; ++i) {
      // As each federated user does at round t: step u on V_t, then the gradient at (u, V_t).
      Eigen::VectorXd u = model.user_factors.row(i).transpose();
      if (t > 0) {
        u = StepUserFactor(model.item_factors, u, train.user(i), config.num_users(),
                           config.lambda_u(), UserStep(config, t - 1));
      }
      AddItemGradient(u, train.user(i), Residuals(model.item_factors, u, train.user(i)), gradient);
      model.user_factors.row(i) = u.transpose();
    }
    gradient /= static_cast<double>(config.num_users());
    model.item_factors -=
        ItemStep(config, t) * (gradient + 2 * config.lambda_v() * model.item_factors);
    if (on_iteration) on_iteration(t + 1, model.item_factors);
  }
  return model;
}

}  // namespace fedmf::algorithms::ldp_gd
