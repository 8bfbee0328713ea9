#include "common/algorithms/hfl_sgdmf/updater.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hfl_sgdmf/initial_embeddings.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/syn_step.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"
#include "common/algorithms/lib/fmf_party/party_error.h"
#include "common/algorithms/matrix_proto.h"

namespace fedmf::algorithms::hfl_sgdmf {

absl::StatusOr<std::unique_ptr<HflSgdmfUpdater>> HflSgdmfUpdater::Create(
    const v1::HflSgdmfConfig& config) {
  if (absl::Status s = ValidateRunConfig(config); !s.ok()) return s;
  absl::StatusOr<InitialModel> initial =
      InitialEmbeddings(config.seed(), ToHflConfig(config), config.num_users(), config.num_items());
  if (!initial.ok()) return initial.status();
  v1::HflSgdmfState state;
  *state.mutable_config() = config;
  *state.mutable_items() = MatrixToProto(initial->items);
  return std::unique_ptr<HflSgdmfUpdater>(
      new HflSgdmfUpdater(std::move(state), std::move(initial->items)));
}

absl::StatusOr<std::unique_ptr<HflSgdmfUpdater>> HflSgdmfUpdater::Restore(absl::string_view bytes) {
  v1::HflSgdmfState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError("hfl-sgdmf state: not a fedmf.v1.HflSgdmfState");
  }
  const v1::HflSgdmfConfig& c = state.config();
  if (absl::Status s = ValidateRunConfig(c); !s.ok()) return s;
  if (state.round() < 0 || state.round() > TotalRounds(c)) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf state: round ", state.round(),
                                                   " outside [0, ", TotalRounds(c), "]"));
  }
  absl::StatusOr<Eigen::MatrixXd> items =
      MatrixFromProto(state.items(), c.num_items(), c.rank(), "hfl-sgdmf state items");
  if (!items.ok()) return items.status();
  return std::unique_ptr<HflSgdmfUpdater>(new HflSgdmfUpdater(std::move(state), *std::move(items)));
}

std::optional<double> HflSgdmfUpdater::TestMse(bool after_finetune) const {
  if (state_.round() < TotalRounds(state_.config())) return std::nullopt;
  return fmf_party::MeanOf(
      {after_finetune ? state_.test_squared_error() : state_.test_squared_error_before_finetune(),
       state_.test_ratings()});
}

std::optional<double> HflSgdmfUpdater::TrainMse() const {
  if (state_.round() < TotalRounds(state_.config())) return std::nullopt;
  return fmf_party::MeanOf({state_.train_squared_error(), state_.train_ratings()});
}

absl::StatusOr<v1::RoundPlan> HflSgdmfUpdater::Plan() const {
  absl::StatusOr<v1::RoundPlan> plan = PlanShape(state_.config(), state_.round());
  if (!plan.ok()) return plan.status();
  v1::HflSgdmfBroadcast broadcast;
  *broadcast.mutable_config() = state_.config();
  broadcast.set_round(state_.round());
  *broadcast.mutable_items() = state_.items();
  plan->set_payload(broadcast.SerializeAsString());
  return plan;
}

absl::Status HflSgdmfUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                       absl::Span<const uint32_t> contributors) {
  const v1::HflSgdmfConfig& c = state_.config();
  const int64_t round = state_.round();
  if (round >= TotalRounds(c)) return absl::FailedPreconditionError("hfl-sgdmf: all rounds done");
  absl::StatusOr<fmf_party::RoundShape> shape = RoundShapeOf(c, round);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Eigen::VectorXd> decoded =
      fmf_party::DecodeRoundSum(kAlgorithmName, *shape, sum, contributors);
  if (!decoded.ok()) return decoded.status();
  if (IsFinalRound(c, round)) {
    state_.set_test_squared_error_before_finetune((*decoded)[0]);
    state_.set_test_squared_error((*decoded)[1]);
    state_.set_test_ratings((*decoded)[2]);
    state_.set_train_squared_error((*decoded)[3]);
    state_.set_train_ratings((*decoded)[4]);
  } else if (ToHflConfig(c).mode == Mode::kSynSgd) {
    Eigen::MatrixXd items = items_;
    if (absl::Status s = ApplySynStep(fmf_party::UnflattenRows(*decoded, c.num_items(), c.rank()),
                                      ToHflConfig(c), round, c.num_users(), items);
        !s.ok()) {
      return s;
    }
    items_ = std::move(items);
    *state_.mutable_items() = MatrixToProto(items_);
  } else {
    items_ = fmf_party::UnflattenRows(*decoded, c.num_items(), c.rank());
    *state_.mutable_items() = MatrixToProto(items_);
  }
  state_.set_round(round + 1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> HflSgdmfUpdater::RoundPrivacy(
    int64_t /*participants*/, const std::vector<double>& orders) const {
  // Every sum holds all s parties; each user's cost is its own party's steps.
  return RoundEntry(ToHflConfig(state_.config()), state_.round(), state_.config().num_parties(),
                    orders);
}

std::optional<dp::PrivacyBudget> HflSgdmfUpdater::budget() const {
  const v1::HflSgdmfConfig& c = state_.config();
  if (c.budget_epsilon() == 0) return std::nullopt;
  return dp::PrivacyBudget::ApproxDp(c.budget_epsilon(), c.budget_delta(), dp::PrivacyUnit::kUser);
}

std::vector<std::pair<std::string, std::string>> HflSgdmfUpdater::Outcome() const {
  const std::optional<double> mse = TestMse();
  if (!mse) return {};
  std::vector<std::pair<std::string, std::string>> outcome = {
      {"test_mse", absl::StrCat(*mse)},
      {"test_rmse", absl::StrCat(std::sqrt(*mse))},
      {"test_mse_before_finetune", absl::StrCat(*TestMse(/*after_finetune=*/false))},
      {"test_ratings", absl::StrCat(state_.test_ratings())}};
  if (const std::optional<double> train = TrainMse()) {
    outcome.emplace_back("train_mse", absl::StrCat(*train));
  }
  return outcome;
}

absl::StatusOr<std::string> HflSgdmfUpdater::SerializeState() const {
  return state_.SerializeAsString();
}

}  // namespace fedmf::algorithms::hfl_sgdmf
