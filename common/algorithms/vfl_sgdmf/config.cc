#include "common/algorithms/vfl_sgdmf/config.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_party/party_plan.h"
#include "common/algorithms/vfl_sgdmf/codec.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("vfl-sgdmf config: ", field, "=", value, " must be ", want));
}

}  // namespace

fmf_sgd::DpSgdMfConfig StepConfig(const v1::VflSgdmfConfig& c) {
  fmf_sgd::DpSgdMfConfig s;
  s.rank = c.rank();
  s.rating_max = c.rating_max();
  s.unit = c.per_user() ? dp::PrivacyUnit::kUser : dp::PrivacyUnit::kRating;
  s.max_ratings_per_user = c.max_ratings_per_user();
  s.clip = fmf_sgd::ClipMode::kEmbedding;
  s.sampling_rate = c.sampling_rate();
  s.noise_multiplier = c.noise_multiplier();
  s.steps = c.syncs() * c.local_steps();
  s.item_only_steps = c.item_only_steps();
  s.learning_rate = c.learning_rate();
  s.final_learning_rate_fraction = c.final_learning_rate_fraction();
  s.init_prediction = c.init_prediction();
  return s;
}

absl::Status ValidateConfig(const v1::VflSgdmfConfig& c) {
  if (c.num_users() < 1) return Bad("num_users", c.num_users(), ">= 1");
  if (c.num_parties() < 1) return Bad("num_parties", c.num_parties(), ">= 1");
  if (c.num_items() < c.num_parties()) {
    return Bad("num_items", c.num_items(), ">= num_parties (each party owns an item)");
  }
  if (c.syncs() < 1) return Bad("syncs", static_cast<double>(c.syncs()), ">= 1");
  if (c.local_steps() < 1) return Bad("local_steps", static_cast<double>(c.local_steps()), ">= 1");
  if (c.syncs() > (int64_t{1} << 40) / c.local_steps()) {
    return Bad("syncs * local_steps", static_cast<double>(c.syncs()) * c.local_steps(), "< 2^40");
  }
  if (!(std::isfinite(c.budget_epsilon()) && c.budget_epsilon() >= 0)) {
    return Bad("budget_epsilon", c.budget_epsilon(), "finite >= 0 (0: no budget)");
  }
  if (c.budget_epsilon() > 0 && !(c.budget_delta() > 0 && c.budget_delta() < 1)) {
    return Bad("budget_delta", c.budget_delta(), "in (0, 1) with a budget");
  }
  return fmf_sgd::ValidateConfig(StepConfig(c));
}

int64_t SyncRounds(const v1::VflSgdmfConfig& config) {
  return config.local_only() ? 0 : config.syncs();
}

int64_t TotalRounds(const v1::VflSgdmfConfig& config) { return SyncRounds(config) + 1; }

bool IsFinalRound(const v1::VflSgdmfConfig& config, int64_t round) {
  return round >= SyncRounds(config);
}

bool UpdatesUsers(const v1::VflSgdmfConfig& config, int64_t round) {
  return !IsFinalRound(config, round) || config.local_only();
}

absl::StatusOr<fmf_party::RoundShape> RoundShapeOf(const v1::VflSgdmfConfig& config,
                                                   int64_t round) {
  absl::StatusOr<fmf_party::Codec> codec = RoundCodec(config, round);
  if (!codec.ok()) return codec.status();
  return fmf_party::RoundShape{
      .round = round,
      .total_rounds = TotalRounds(config),
      .length = IsFinalRound(config, round)
                    ? kFinalReportLength
                    : static_cast<uint64_t>(config.num_users()) * config.rank(),
      .codec = *codec,
      .secure_sum = config.secure_sum(),
      .parties = config.num_parties()};
}

absl::StatusOr<v1::RoundPlan> PlanShape(const v1::VflSgdmfConfig& config, int64_t round) {
  absl::StatusOr<fmf_party::RoundShape> shape = RoundShapeOf(config, round);
  if (!shape.ok()) return shape.status();
  return fmf_party::PlanShape(kAlgorithmName, *shape);
}

absl::Status CheckPlanShape(const v1::VflSgdmfConfig& config, const v1::RoundPlan& plan) {
  absl::StatusOr<v1::RoundPlan> want = PlanShape(config, plan.round());
  if (!want.ok()) return want.status();
  return fmf_party::CheckPlanShape(kAlgorithmName, *want, plan);
}

}  // namespace fedmf::algorithms::vfl_sgdmf
