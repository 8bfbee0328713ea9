#include "common/algorithms/hfl_sgdmf/run_config.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_party/party_plan.h"
#include "common/algorithms/lib/fmf_sgd/config.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("hfl-sgdmf config: ", field, "=", value, " must be ", want));
}

}  // namespace

absl::Status ValidateRunConfig(const v1::HflSgdmfConfig& c) {
  if (c.num_parties() < 1) return Bad("num_parties", c.num_parties(), ">= 1");
  if (c.num_users() < c.num_parties()) {
    return Bad("num_users", c.num_users(), ">= num_parties (each party holds a user)");
  }
  if (c.num_items() < 1) return Bad("num_items", c.num_items(), ">= 1");
  absl::StatusOr<Mode> mode = ParseMode(c.mode());
  if (!mode.ok()) return mode.status();
  if (*mode == Mode::kLocalOnly) {
    return absl::InvalidArgumentError(
        "hfl-sgdmf config: mode local-only needs no network (each party trains alone); run it "
        "in process: fedmf-central --model=hfl-sgdmf --hfl_mode=local-only");
  }
  if (!(std::isfinite(c.budget_epsilon()) && c.budget_epsilon() >= 0)) {
    return Bad("budget_epsilon", c.budget_epsilon(), "finite >= 0 (0: no budget)");
  }
  if (c.budget_epsilon() > 0 && !(c.budget_delta() > 0 && c.budget_delta() < 1)) {
    return Bad("budget_delta", c.budget_delta(), "in (0, 1) with a budget");
  }
  return ValidateConfig(ToHflConfig(c));
}

HflConfig ToHflConfig(const v1::HflSgdmfConfig& c) {
  HflConfig h;
  h.step.rank = c.rank();
  h.step.rating_max = c.rating_max();
  h.step.unit = dp::PrivacyUnit::kUser;
  h.step.max_ratings_per_user = c.max_ratings_per_user();
  h.step.clip = fmf_sgd::ClipMode::kEmbedding;
  h.step.sampling_rate = c.sampling_rate();
  h.step.noise_multiplier = c.noise_multiplier();
  h.step.learning_rate = c.learning_rate();
  h.step.final_learning_rate_fraction = c.final_learning_rate_fraction();
  h.step.init_prediction = c.init_prediction();
  h.mode = ParseMode(c.mode()).value_or(Mode::kPretrainUsers);
  h.parties = c.num_parties();
  h.syncs = c.syncs();
  h.local_steps = c.local_steps();
  h.pretrain_steps = c.pretrain_steps();
  h.finetune_steps = c.finetune_steps();
  return h;
}

int64_t TotalRounds(const v1::HflSgdmfConfig& config) { return SyncCount(ToHflConfig(config)) + 1; }

bool IsFinalRound(const v1::HflSgdmfConfig& config, int64_t round) {
  return round >= SyncCount(ToHflConfig(config));
}

absl::StatusOr<fmf_party::NoisySumCodec> SynGradientCodec(const v1::HflSgdmfConfig& config) {
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(ToHflConfig(config));
  const double rating_gradient = 2 * std::pow(config.rating_max(), 1.5);
  return fmf_party::MakeNoisySumCodec(
      rating_gradient * config.num_users(),
      noisy.noise_multiplier * fmf_sgd::StepSensitivity(noisy, /*update_users=*/false),
      config.num_parties());
}

absl::StatusOr<fmf_party::Codec> RoundCodec(const v1::HflSgdmfConfig& config, int64_t round) {
  if (IsFinalRound(config, round)) {
    return fmf_party::ErrorSumCodec(config.num_users(), config.num_items(), config.rating_max(),
                                    config.num_parties());
  }
  if (ToHflConfig(config).mode == Mode::kSynSgd) {
    absl::StatusOr<fmf_party::NoisySumCodec> syn = SynGradientCodec(config);
    if (!syn.ok()) return syn.status();
    return syn->codec;
  }
  return fmf_party::EmbeddingAverageCodec(config.rating_max(), config.num_parties());
}

absl::StatusOr<fmf_party::RoundShape> RoundShapeOf(const v1::HflSgdmfConfig& config,
                                                   int64_t round) {
  absl::StatusOr<fmf_party::Codec> codec = RoundCodec(config, round);
  if (!codec.ok()) return codec.status();
  return fmf_party::RoundShape{
      .round = round,
      .total_rounds = TotalRounds(config),
      .length = IsFinalRound(config, round)
                    ? kFinalReportLength
                    : static_cast<uint64_t>(config.num_items()) * config.rank(),
      .codec = *codec,
      .secure_sum = config.secure_sum(),
      .parties = config.num_parties()};
}

absl::StatusOr<v1::RoundPlan> PlanShape(const v1::HflSgdmfConfig& config, int64_t round) {
  absl::StatusOr<fmf_party::RoundShape> shape = RoundShapeOf(config, round);
  if (!shape.ok()) return shape.status();
  return fmf_party::PlanShape(kAlgorithmName, *shape);
}

absl::Status CheckPlanShape(const v1::HflSgdmfConfig& config, const v1::RoundPlan& plan) {
  absl::StatusOr<v1::RoundPlan> want = PlanShape(config, plan.round());
  if (!want.ok()) return want.status();
  return fmf_party::CheckPlanShape(kAlgorithmName, *want, plan);
}

}  // namespace fedmf::algorithms::hfl_sgdmf
