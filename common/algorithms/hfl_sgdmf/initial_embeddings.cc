#include "common/algorithms/hfl_sgdmf/initial_embeddings.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

constexpr uint64_t kInitStream = 1;  // fmf_sgd::TrainCentralDpSgdMf's initialization stream

}  // namespace

absl::StatusOr<InitialModel> InitialEmbeddings(uint64_t seed, const HflConfig& config,
                                               int32_t num_users, int32_t num_items) {
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  dp::Rng init(seed, kInitStream);
  absl::StatusOr<Eigen::MatrixXd> users = fmf_sgd::InitialEmbeddings(num_users, noisy, init);
  if (!users.ok()) return users.status();
  absl::StatusOr<Eigen::MatrixXd> items = fmf_sgd::InitialEmbeddings(num_items, noisy, init);
  if (!items.ok()) return items.status();
  return InitialModel{*std::move(users), *std::move(items)};
}

absl::StatusOr<Eigen::MatrixXd> InitialPartyUsers(uint64_t seed, const HflConfig& config,
                                                  int32_t num_users,
                                                  const std::vector<int32_t>& global_users) {
  dp::Rng init(seed, kInitStream);
  absl::StatusOr<Eigen::MatrixXd> users =
      fmf_sgd::InitialEmbeddings(num_users, NoisyStageConfig(config), init);
  if (!users.ok()) return users.status();
  Eigen::MatrixXd own(static_cast<Eigen::Index>(global_users.size()), users->cols());
  for (size_t k = 0; k < global_users.size(); ++k) {
    const int32_t u = global_users[k];
    if (u < 0 || u >= num_users) {
      return absl::InvalidArgumentError(
          absl::StrCat("hfl-sgdmf: the party's user ", u, " is outside [0, ", num_users, ")"));
    }
    own.row(static_cast<Eigen::Index>(k)) = users->row(u);
  }
  return own;
}

}  // namespace fedmf::algorithms::hfl_sgdmf
