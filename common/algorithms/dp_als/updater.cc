#include "common/algorithms/dp_als/updater.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/codec.h"
#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/item_update.h"
#include "common/algorithms/dp_als/privacy.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_payload.h"
#include "common/algorithms/start_model.h"
#include "common/mf/factor_model.h"

namespace fedmf::algorithms::dp_als {

absl::StatusOr<std::unique_ptr<DpAlsUpdater>> DpAlsUpdater::Create(
    v1::DpAlsConfig config, std::optional<mf::FactorMatrix> start_items) {
  absl::StatusOr<v1::DpAlsNoise> noise = CalibrateNoise(config);
  if (!noise.ok()) return noise.status();
  v1::DpAlsModel model;
  mf::FactorMatrix v0;
  if (start_items.has_value()) {
    if (absl::Status s =
            CheckStartItemFactors(*start_items, config.num_items(), config.rank(), kAlgorithmName);
        !s.ok()) {
      return s;
    }
    v0 = *std::move(start_items);
  } else {
    v0 = mf::RandomFactors(config.num_items(), config.rank(), config.init_scale(), config.seed());
    if (config.init_constant_column()) v0.col(0).setConstant(config.init_scale());
  }
  *model.mutable_item_factors() = MatrixToProto(v0);
  *model.mutable_noise() = *std::move(noise);
  *model.mutable_config() = std::move(config);
  std::unique_ptr<DpAlsUpdater> updater(new DpAlsUpdater(std::move(model)));
  // Fails here, not in round 0, when the sum cannot be encoded.
  if (absl::Status s = updater->Plan().status(); !s.ok()) return s;
  return updater;
}

absl::StatusOr<std::unique_ptr<DpAlsUpdater>> DpAlsUpdater::Restore(absl::string_view state) {
  v1::DpAlsModel model;
  if (!model.ParseFromString(std::string(state))) {
    return absl::DataLossError("dp-als state: not a fedmf.v1.DpAlsModel");
  }
  const v1::DpAlsConfig& c = model.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (model.round() < 0 || model.round() > c.iterations()) {
    return absl::DataLossError(
        absl::StrCat("dp-als state: round=", model.round(), " outside [0, ", c.iterations(), "]"));
  }
  if (absl::Status s =
          MatrixFromProto(model.item_factors(), c.num_items(), c.rank(), "dp-als state V").status();
      !s.ok()) {
    return s;
  }
  std::unique_ptr<DpAlsUpdater> updater(new DpAlsUpdater(std::move(model)));
  if (absl::Status s = updater->Plan().status(); !s.ok()) return s;
  return updater;
}

absl::StatusOr<v1::RoundPlan> DpAlsUpdater::Plan() const {
  const v1::DpAlsConfig& c = model_.config();
  absl::StatusOr<StatisticsCodec> codec = StatisticsCodec::Create(c, model_.noise());
  if (!codec.ok()) return codec.status();
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(model_.round());
  if (absl::Status s = SetPlanPayload(model_, kAlgorithmName, "rank or the catalogue", plan);
      !s.ok()) {
    return s;
  }
  plan.set_length(static_cast<uint64_t>(codec->length()));
  plan.set_bits(codec->bits());
  plan.set_client_bits(codec->bits());
  plan.set_combination(c.secure_aggregation() ? v1::COMBINATION_SECURE_SUM : v1::COMBINATION_CLEAR);
  plan.set_min_contributors(static_cast<uint64_t>(c.num_users()));
  plan.set_max_contributors(static_cast<uint64_t>(c.num_users()));
  return plan;
}

absl::Status DpAlsUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                    absl::Span<const uint32_t> contributors) {
  const v1::DpAlsConfig& c = model_.config();
  if (model_.round() >= c.iterations()) {
    return absl::FailedPreconditionError(
        absl::StrCat("dp-als: all ", c.iterations(), " rounds are applied"));
  }
  absl::StatusOr<StatisticsCodec> codec = StatisticsCodec::Create(c, model_.noise());
  if (!codec.ok()) return codec.status();
  absl::StatusOr<Eigen::VectorXd> decoded =
      codec->DecodeSum(sum, static_cast<int64_t>(contributors.size()));
  if (!decoded.ok()) return decoded.status();
  absl::StatusOr<mf::FactorMatrix> v = SolveItemFactors(c, model_.noise(), *decoded);
  if (!v.ok()) return v.status();
  *model_.mutable_item_factors() = MatrixToProto(*v);
  model_.set_round(model_.round() + 1);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> DpAlsUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>& orders) const {
  if (model_.round() >= model_.config().iterations()) return std::nullopt;
  return RoundLedgerEntry(model_.config(), model_.noise(), model_.round(), participants, orders);
}

std::optional<dp::PrivacyBudget> DpAlsUpdater::budget() const {
  if (!Noisy(model_.config())) return std::nullopt;
  return Budget(model_.config());
}

}  // namespace fedmf::algorithms::dp_als
