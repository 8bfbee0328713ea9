#include "common/algorithms/lib/graph_filter/models.h"

#include <utility>

namespace fedmf::algorithms::graph_filter {

Block GfCf::Apply(const Block& x) const {
  Block scores = gram_->Apply(x);
  if (gamma_ != 0) scores += gamma_ * low_pass_->Apply(x);
  return scores;
}

Block GfCf::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  Block scores = gram_->ApplyToUsers(users);
  if (gamma_ != 0) scores += gamma_ * low_pass_->ApplyToUsers(users);
  return scores;
}

Block TurboCf::Polynomial(Block first_power) const {
  if (polynomial_ == 1) return first_power;
  const Block second_power = powered_gram_->Apply(first_power);
  if (polynomial_ == 2) return 2 * first_power - second_power;
  const Block third_power = powered_gram_->Apply(second_power);
  return first_power + 0.01 * (-third_power + 10 * second_power - 29 * first_power);
}

Block TurboCf::Apply(const Block& x) const { return Polynomial(powered_gram_->Apply(x)); }

Block TurboCf::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  return Polynomial(powered_gram_->ApplyToUsers(users));
}

Block Bspm::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  const Block r = Indicators(users, num_items());
  Block ideal_slope;
  if (config_.ideal_weight != 0) ideal_slope = low_pass_->ApplyToUsers(users) - r;
  const Block blur_slope = gram_->ApplyToUsers(users) - r;
  return Run(r, config_.ideal_weight != 0 ? &ideal_slope : nullptr, &blur_slope);
}

Block Bspm::Run(const Block& x, const Block* ideal_slope, const Block* blur_slope) const {
  const double beta = config_.ideal_weight;
  const bool combine = config_.point_combination;
  Block ideal;
  if (beta != 0) {
    ideal = SolveLinearOde(*low_pass_, 1, -1, x, config_.ideal, ideal_slope, nullptr);
  }
  Block blur_points, sharpen_points;  // sums of the time points t_1..t_K
  Block blurred =
      SolveLinearOde(*gram_, 1, -1, x, config_.blur, blur_slope, combine ? &blur_points : nullptr);
  Block scores;
  if (!config_.sharpening) {
    scores = combine ? Block(blur_points / config_.blur.steps) : std::move(blurred);
  } else {
    Block start = std::move(blurred);
    if (config_.early_merge && beta != 0) start += beta * ideal;
    Block sharpened = SolveLinearOde(*gram_, -1, 0, std::move(start), config_.sharpen, nullptr,
                                     combine ? &sharpen_points : nullptr);
    scores =
        combine
            ? Block((blur_points + sharpen_points) / (config_.blur.steps + config_.sharpen.steps))
            : std::move(sharpened);
    if (config_.early_merge) return scores;
  }
  if (beta != 0) scores += beta * ideal;
  return scores;
}

}  // namespace fedmf::algorithms::graph_filter
