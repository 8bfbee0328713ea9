#include "common/algorithms/vfl_sgdmf/party_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/matrix_proto.h"
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

dp::Rng RoundNoiseRng(const uint64_t key[2], int64_t round) {
  dp::Rng base(key[0], key[1]);
  for (int64_t k = 0; k < 2 * round; ++k) base();
  const uint64_t a = base();
  const uint64_t b = base();
  return dp::Rng(a, b);
}

absl::StatusOr<RoundStart> StartRound(const v1::VflSgdmfConfig& config, absl::string_view bytes,
                                      int64_t round, const std::vector<int32_t>& global_items,
                                      dp::Rng& rng) {
  RoundStart start;
  if (bytes.empty()) {
    if (round != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("vfl-sgdmf: the party has no state for round ", round,
                       " (it lost it, or joined late): its item embeddings cannot be recovered"));
    }
    start.key[0] = rng();
    start.key[1] = rng();
    absl::StatusOr<Eigen::MatrixXd> items = InitialPartyItems(config, global_items);
    if (!items.ok()) return items.status();
    start.items = *std::move(items);
    return start;
  }
  v1::VflSgdmfPartyState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError("vfl-sgdmf: party state is not a VflSgdmfPartyState");
  }
  if (round != state.round() && round != state.round() + 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("vfl-sgdmf: the party's state is at round ", state.round(),
                     ", the coordinator plans round ", round, ": it lost rounds"));
  }
  const bool retry = round == state.round();
  absl::StatusOr<Eigen::MatrixXd> items = MatrixFromProto(
      retry ? state.items_before() : state.items_after(), static_cast<int64_t>(global_items.size()),
      config.rank(), "vfl-sgdmf party item embeddings");
  if (!items.ok()) return items.status();
  start.key[0] = state.noise_key_0();
  start.key[1] = state.noise_key_1();
  start.items = *std::move(items);
  return start;
}

std::string EncodePartyState(const RoundStart& start, int64_t round, const Eigen::MatrixXd& items) {
  v1::VflSgdmfPartyState state;
  state.set_noise_key_0(start.key[0]);
  state.set_noise_key_1(start.key[1]);
  state.set_round(round);
  *state.mutable_items_before() = MatrixToProto(start.items);
  *state.mutable_items_after() = MatrixToProto(items);
  return state.SerializeAsString();
}

}  // namespace fedmf::algorithms::vfl_sgdmf
