#include "common/algorithms/vfl_sgdmf/updater.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_party/party_error.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/vfl_sgdmf/codec.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/party_state.h"
#include "common/algorithms/vfl_sgdmf/privacy.h"

namespace fedmf::algorithms::vfl_sgdmf {

absl::StatusOr<std::unique_ptr<VflSgdmfUpdater>> VflSgdmfUpdater::Create(
    const v1::VflSgdmfConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> users = InitialUsers(config);
  if (!users.ok()) return users.status();
  v1::VflSgdmfState state;
  *state.mutable_config() = config;
  *state.mutable_users() = MatrixToProto(*users);
  return std::unique_ptr<VflSgdmfUpdater>(new VflSgdmfUpdater(std::move(state), *std::move(users)));
}

absl::StatusOr<std::unique_ptr<VflSgdmfUpdater>> VflSgdmfUpdater::Restore(absl::string_view bytes) {
  v1::VflSgdmfState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError("vfl-sgdmf state: not a fedmf.v1.VflSgdmfState");
  }
  const v1::VflSgdmfConfig& c = state.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (state.round() < 0 || state.round() > TotalRounds(c)) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf state: round ", state.round(),
                                                   " outside [0, ", TotalRounds(c), "]"));
  }
  absl::StatusOr<Eigen::MatrixXd> users =
      MatrixFromProto(state.users(), c.num_users(), c.rank(), "vfl-sgdmf state users");
  if (!users.ok()) return users.status();
  return std::unique_ptr<VflSgdmfUpdater>(new VflSgdmfUpdater(std::move(state), *std::move(users)));
}

Eigen::MatrixXd VflSgdmfUpdater::Users() const { return users_; }

std::optional<double> VflSgdmfUpdater::TestMse() const {
  if (state_.round() < TotalRounds(state_.config())) return std::nullopt;
  return fmf_party::MeanOf({state_.test_squared_error(), state_.test_ratings()});
}

std::optional<double> VflSgdmfUpdater::TrainMse() const {
  if (state_.round() < TotalRounds(state_.config())) return std::nullopt;
  return fmf_party::MeanOf({state_.train_squared_error(), state_.train_ratings()});
}

absl::StatusOr<v1::RoundPlan> VflSgdmfUpdater::Plan() const {
  absl::StatusOr<v1::RoundPlan> plan = PlanShape(state_.config(), state_.round());
  if (!plan.ok()) return plan.status();
  v1::VflSgdmfBroadcast broadcast;
  *broadcast.mutable_config() = state_.config();
  broadcast.set_round(state_.round());
  *broadcast.mutable_users() = state_.users();
  plan->set_payload(broadcast.SerializeAsString());
  return plan;
}

absl::Status VflSgdmfUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                       absl::Span<const uint32_t> contributors) {
  const v1::VflSgdmfConfig& c = state_.config();
  const int64_t round = state_.round();
  if (round >= TotalRounds(c)) return absl::FailedPreconditionError("vfl-sgdmf: all rounds done");
  absl::StatusOr<fmf_party::RoundShape> shape = RoundShapeOf(c, round);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Eigen::VectorXd> decoded =
      fmf_party::DecodeRoundSum(kAlgorithmName, *shape, sum, contributors);
  if (!decoded.ok()) return decoded.status();
  if (IsFinalRound(c, round)) {
    state_.set_test_squared_error((*decoded)[0]);
    state_.set_test_ratings((*decoded)[1]);
    state_.set_train_squared_error((*decoded)[2]);
    state_.set_train_ratings((*decoded)[3]);
  } else {
    users_ = UnflattenRows(*decoded, c.num_users(), c.rank());
    *state_.mutable_users() = MatrixToProto(users_);
  }
  state_.set_round(round + 1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> VflSgdmfUpdater::RoundPrivacy(
    int64_t /*participants*/, const std::vector<double>& orders) const {
  // Each party's noise protects its own data: the round costs every party's steps (and every
  // sum holds all s parties).
  return RoundEntry(state_.config(), state_.round(), state_.config().num_parties(), orders);
}

std::optional<dp::PrivacyBudget> VflSgdmfUpdater::budget() const { return Budget(state_.config()); }

std::vector<std::pair<std::string, std::string>> VflSgdmfUpdater::Outcome() const {
  const std::optional<double> mse = TestMse();
  if (!mse) return {};
  std::vector<std::pair<std::string, std::string>> outcome = {
      {"test_mse", absl::StrCat(*mse)},
      {"test_rmse", absl::StrCat(std::sqrt(*mse))},
      {"test_ratings", absl::StrCat(state_.test_ratings())}};
  if (const std::optional<double> train = TrainMse()) {
    outcome.emplace_back("train_mse", absl::StrCat(*train));
  }
  return outcome;
}

absl::StatusOr<std::string> VflSgdmfUpdater::SerializeState() const {
  return state_.SerializeAsString();
}

}  // namespace fedmf::algorithms::vfl_sgdmf
