#include "common/algorithms/vfl_sgdmf/party_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/vfl_sgdmf/config.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

constexpr uint64_t kInitStream = 1;  // fmf_sgd::TrainCentralDpSgdMf's initialization stream

}  // namespace

absl::StatusOr<Eigen::MatrixXd> InitialUsers(const v1::VflSgdmfConfig& config) {
  dp::Rng init(config.seed(), kInitStream);
  return fmf_sgd::InitialEmbeddings(config.num_users(), StepConfig(config), init);
}

absl::StatusOr<Eigen::MatrixXd> InitialPartyItems(const v1::VflSgdmfConfig& config,
                                                  const std::vector<int32_t>& global_items) {
  dp::Rng init(config.seed(), kInitStream);
  const fmf_sgd::DpSgdMfConfig step = StepConfig(config);
  if (absl::StatusOr<Eigen::MatrixXd> users =
          fmf_sgd::InitialEmbeddings(config.num_users(), step, init);
      !users.ok()) {
    return users.status();
  }
  absl::StatusOr<Eigen::MatrixXd> items =
      fmf_sgd::InitialEmbeddings(config.num_items(), step, init);
  if (!items.ok()) return items.status();
  Eigen::MatrixXd own(static_cast<Eigen::Index>(global_items.size()), items->cols());
  for (size_t k = 0; k < global_items.size(); ++k) {
    const int32_t j = global_items[k];
    if (j < 0 || j >= config.num_items()) {
      return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: the party's item ", j,
                                                     " is outside [0, ", config.num_items(), ")"));
    }
    own.row(static_cast<Eigen::Index>(k)) = items->row(j);
  }
  return own;
}

absl::StatusOr<RoundStart> StartRound(const v1::VflSgdmfConfig& config, absl::string_view bytes,
                                      int64_t round, const std::vector<int32_t>& global_items,
                                      dp::Rng& rng) {
  return fmf_party::StartRound(
      kAlgorithmName, bytes, round, static_cast<int64_t>(global_items.size()), config.rank(),
      [&] { return InitialPartyItems(config, global_items); }, rng);
}

}  // namespace fedmf::algorithms::vfl_sgdmf
