#include "common/algorithms/hfl_sgdmf/config.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("hfl-sgdmf config: ", field, "=", value, " must be ", want));
}

}  // namespace

absl::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kPretrainUsers:
      return "pretrain-u";
    case Mode::kTrainBoth:
      return "train-both";
    case Mode::kSynSgd:
      return "syn-sgd";
    case Mode::kLocalOnly:
      return "local-only";
  }
  return "?";
}

absl::StatusOr<Mode> ParseMode(absl::string_view name) {
  for (Mode m : {Mode::kPretrainUsers, Mode::kTrainBoth, Mode::kSynSgd, Mode::kLocalOnly}) {
    if (name == ModeName(m)) return m;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "hfl-sgdmf mode '", name, "' must be pretrain-u, train-both, syn-sgd or local-only"));
}

absl::Status ValidateConfig(const HflConfig& c) {
  if (c.step.unit != dp::PrivacyUnit::kUser) {
    return absl::InvalidArgumentError(
        "hfl-sgdmf config: unit must be user (u_i is fitted on all of user i's ratings, so one "
        "rating moves every V gradient of the user: per-rating sensitivity is not g)");
  }
  if (c.step.clip != fmf_sgd::ClipMode::kEmbedding) {
    return absl::InvalidArgumentError("hfl-sgdmf config: clip must be embedding");
  }
  if (c.parties < 1) return Bad("parties", c.parties, ">= 1");
  if (c.syncs < 1) return Bad("syncs", static_cast<double>(c.syncs), ">= 1");
  if (c.local_steps < 1) return Bad("local_steps", static_cast<double>(c.local_steps), ">= 1");
  if (c.syncs > (int64_t{1} << 40) / c.local_steps) {
    return Bad("syncs * local_steps", static_cast<double>(c.syncs) * c.local_steps, "< 2^40");
  }
  if (c.pretrain_steps < 0)
    return Bad("pretrain_steps", static_cast<double>(c.pretrain_steps), ">= 0");
  if (c.finetune_steps < 0)
    return Bad("finetune_steps", static_cast<double>(c.finetune_steps), ">= 0");
  return fmf_sgd::ValidateConfig(NoisyStageConfig(c));
}

fmf_sgd::DpSgdMfConfig NoisyStageConfig(const HflConfig& config) {
  fmf_sgd::DpSgdMfConfig s = config.step;
  s.steps = config.syncs * config.local_steps;
  s.item_only_steps = 0;
  return s;
}

int64_t SyncCount(const HflConfig& config) {
  return config.mode == Mode::kSynSgd ? config.syncs * config.local_steps : config.syncs;
}

int64_t StepsPerSync(const HflConfig& config) {
  return config.mode == Mode::kSynSgd ? 1 : config.local_steps;
}

fmf_sgd::DpSgdMfConfig LocalStageConfig(const HflConfig& config, int64_t steps) {
  fmf_sgd::DpSgdMfConfig s = config.step;
  s.sampling_rate = 1;
  s.noise_multiplier = 0;
  // No noise, nothing published: the stage trains on every rating, untrimmed.
  s.unit = dp::PrivacyUnit::kRating;
  s.steps = steps;
  s.item_only_steps = 0;
  return s;
}

}  // namespace fedmf::algorithms::hfl_sgdmf
