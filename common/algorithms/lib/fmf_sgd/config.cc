#include "common/algorithms/lib/fmf_sgd/config.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("dp-sgdmf: ", field, "=", value, " must be ", want));
}

bool FinitePositive(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

absl::string_view ClipModeName(ClipMode mode) {
  return mode == ClipMode::kEmbedding ? "embedding" : "gradient";
}

absl::StatusOr<ClipMode> ParseClipMode(absl::string_view name) {
  if (name == "embedding") return ClipMode::kEmbedding;
  if (name == "gradient") return ClipMode::kGradient;
  return absl::InvalidArgumentError(
      absl::StrCat("dp-sgdmf: clipping mode must be embedding or gradient, got '", name, "'"));
}

absl::Status ValidateConfig(const DpSgdMfConfig& c) {
  if (c.rank < 1) return Bad("rank", c.rank, ">= 1");
  if (!FinitePositive(c.rating_max)) return Bad("rating_max", c.rating_max, "finite > 0");
  if (c.unit == dp::PrivacyUnit::kUser && c.max_ratings_per_user < 1) {
    return Bad("max_ratings_per_user", c.max_ratings_per_user, ">= 1 for per-user privacy");
  }
  if (c.clip == ClipMode::kGradient && !FinitePositive(c.gradient_clip)) {
    return Bad("gradient_clip", c.gradient_clip, "finite > 0");
  }
  if (!(c.sampling_rate > 0 && c.sampling_rate <= 1)) {
    return Bad("sampling_rate", c.sampling_rate, "in (0, 1]");
  }
  if (!(std::isfinite(c.noise_multiplier) && c.noise_multiplier >= 0)) {
    return Bad("noise_multiplier", c.noise_multiplier, "finite >= 0");
  }
  if (c.steps < 0) return Bad("steps", static_cast<double>(c.steps), ">= 0");
  if (c.item_only_steps < 0) {
    return Bad("item_only_steps", static_cast<double>(c.item_only_steps), ">= 0");
  }
  if (c.steps + c.item_only_steps < 1) {
    return Bad("steps + item_only_steps", static_cast<double>(c.steps + c.item_only_steps), ">= 1");
  }
  if (!FinitePositive(c.learning_rate)) return Bad("learning_rate", c.learning_rate, "finite > 0");
  if (!(c.final_learning_rate_fraction > 0 && c.final_learning_rate_fraction <= 1)) {
    return Bad("final_learning_rate_fraction", c.final_learning_rate_fraction, "in (0, 1]");
  }
  if (!(c.init_prediction > 0 && c.init_prediction <= c.rating_max)) {
    return Bad("init_prediction", c.init_prediction, "in (0, rating_max]");
  }
  return absl::OkStatus();
}

double StepSensitivity(const DpSgdMfConfig& c, bool update_users) {
  if (c.clip == ClipMode::kGradient) return c.gradient_clip;
  const double g = RatingGradientBound(c.rating_max);
  if (c.unit == dp::PrivacyUnit::kRating) return update_users ? std::sqrt(2.0) * g : g;
  const double theta = c.max_ratings_per_user;
  return update_users ? g * std::sqrt(theta * theta + theta) : g * std::sqrt(theta);
}

double PaperStepSensitivity(const DpSgdMfConfig& c, bool update_users) {
  if (c.clip == ClipMode::kGradient) return c.gradient_clip;
  const double g = RatingGradientBound(c.rating_max);
  const double rating = update_users ? std::sqrt(2.0) * g : g;
  return c.unit == dp::PrivacyUnit::kRating ? rating : c.max_ratings_per_user * rating;
}

double LearningRate(const DpSgdMfConfig& c, int64_t step) {
  const double decay_steps = 0.8 * static_cast<double>(c.steps + c.item_only_steps);
  const double progress = std::min(1.0, static_cast<double>(step) / decay_steps);
  return c.learning_rate * (1 - (1 - c.final_learning_rate_fraction) * progress);
}

}  // namespace fedmf::algorithms::fmf_sgd
