#include "common/algorithms/ldp_gd/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/matrix_proto.h"

namespace fedmf::algorithms::ldp_gd {

absl::StatusOr<std::unique_ptr<LdpGdUpdater>> LdpGdUpdater::Create(const v1::LdpGdConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::LdpGdState state;
  *state.mutable_config() = config;
  return std::unique_ptr<LdpGdUpdater>(
      new LdpGdUpdater(std::move(state), InitialItemFactors(config)));
}

absl::StatusOr<std::unique_ptr<LdpGdUpdater>> LdpGdUpdater::Restore(absl::string_view bytes) {
  v1::LdpGdState state;
  if (!state.ParseFromString(std::string(bytes))) {
    return absl::InvalidArgumentError("ldp-gd state: not a fedmf.v1.LdpGdState");
  }
  const v1::LdpGdConfig& c = state.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (state.round() < 0 || state.round() > c.rounds()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ldp-gd state: round ", state.round(), " outside [0, ", c.rounds(), "]"));
  }
  absl::StatusOr<Eigen::MatrixXd> v =
      MatrixFromProto(state.item_factors(), c.num_items(), c.rank(), "ldp-gd state item factors");
  if (!v.ok()) return v.status();
  state.clear_item_factors();
  return std::unique_ptr<LdpGdUpdater>(new LdpGdUpdater(std::move(state), *std::move(v)));
}

absl::StatusOr<v1::RoundPlan> LdpGdUpdater::Plan() const {
  const v1::LdpGdConfig& c = state_.config();
  v1::LdpGdBroadcast broadcast;
  *broadcast.mutable_config() = c;
  broadcast.set_round(state_.round());
  *broadcast.mutable_item_factors() = MatrixToProto(item_factors_);
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(AlgorithmName(c)));
  plan.set_round(state_.round());
  plan.set_phase(0);
  plan.set_payload(broadcast.SerializeAsString());
  plan.set_length(static_cast<uint64_t>(ReportDim(c)));
  plan.set_bits(kBits);
  plan.set_client_bits(kBits);
  plan.set_combination(c.secure_sum() ? v1::COMBINATION_SECURE_SUM : v1::COMBINATION_CLEAR);
  plan.set_min_contributors(c.min_contributors());
  plan.set_max_contributors(c.cohort_size());
  return plan;
}

absl::Status LdpGdUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                    absl::Span<const uint32_t> contributors) {
  const v1::LdpGdConfig& c = state_.config();
  const int64_t round = state_.round();
  if (round >= c.rounds()) {
    return absl::FailedPreconditionError(
        absl::StrCat("ldp-gd: all ", c.rounds(), " rounds done (each user's budget is spent)"));
  }
  absl::StatusOr<Eigen::MatrixXd> mean =
      DecodeMeanReport(c, sum, static_cast<int64_t>(contributors.size()));
  if (!mean.ok()) return mean.status();
  Eigen::MatrixXd gradient;
  if (c.projection() == v1::LDP_PROJECTION_NONE) {
    gradient = *std::move(mean);
  } else {
    absl::StatusOr<std::shared_ptr<const dp::GaussianProjection>> phi = RoundProjection(c, round);
    if (!phi.ok()) return phi.status();
    if (c.projection() == v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE) {
      if (!recovery_.has_value()) {
        absl::StatusOr<dp::ProjectionRecovery> recovery =
            dp::ProjectionRecovery::Create(*std::move(phi));
        if (!recovery.ok()) return recovery.status();
        recovery_.emplace(*std::move(recovery));
      }
      absl::StatusOr<Eigen::MatrixXd> recovered = recovery_->Recover(*mean);
      if (!recovered.ok()) return recovered.status();
      gradient = *std::move(recovered);
    } else {
      gradient = (*phi)->matrix().transpose() * *mean;
    }
  }
  item_factors_ -= ItemStep(c, round) * (gradient + 2 * c.lambda_v() * item_factors_);
  state_.set_round(round + 1);
  return absl::OkStatus();
}

absl::Status LdpGdUpdater::CheckUpload(const ContributionVector& vector) const {
  return CheckReport(vector, ReportDim(state_.config()));
}

absl::StatusOr<std::optional<dp::LedgerEntry>> LdpGdUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>&) const {
  return RoundRelease(state_.config(), state_.round(), participants);
}

std::optional<dp::PrivacyBudget> LdpGdUpdater::budget() const {
  return dp::PrivacyBudget::PureDp(state_.config().epsilon(), dp::PrivacyUnit::kUser);
}

absl::StatusOr<std::string> LdpGdUpdater::SerializeState() const {
  v1::LdpGdState state = state_;
  *state.mutable_item_factors() = MatrixToProto(item_factors_);
  return state.SerializeAsString();
}

}  // namespace fedmf::algorithms::ldp_gd
