#include "common/data/synthetic_shapes.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fedmf::data {
namespace {

// How each parameter was chosen: docs/results/synthetic-data.md, "Calibration".
SyntheticConfig MovieLens20M() {
  SyntheticConfig c;
  c.num_users = 138493;
  c.num_items = 26744;
  c.ratings_per_user = 144.4;  // 20,000,263 ratings
  c.user_activity_exponent = 0.5;
  c.user_activity_offset = 30;
  c.item_popularity_exponent = 2.5;
  c.item_popularity_offset = 300;
  return c;
}

SyntheticConfig Gowalla() {
  SyntheticConfig c;
  c.num_users = 29858;
  c.num_items = 40981;
  c.ratings_per_user = 34.4;  // 1,027,370 interactions
  c.min_ratings_per_user = 10;
  c.user_activity_exponent = 0.5;
  c.user_activity_offset = 20;
  c.item_popularity_exponent = 0.6;
  c.item_popularity_offset = 20;
  c.taste_clusters = 300;
  c.taste_strength = 2.5;
  c.popularity_share = 0.1;
  c.implicit = true;
  return c;
}

SyntheticConfig Legacy() {
  SyntheticConfig c;
  c.item_popularity_exponent = 0.9;
  c.item_popularity_offset = 1;
  c.user_activity_exponent = 0.3;
  c.user_activity_offset = 1;
  c.taste_clusters = 0;
  c.noise_std = 0.8;
  c.mean_score = 3.62;
  c.star_cuts = {1.5, 2.5, 3.5, 4.5};
  return c;
}

const std::vector<std::pair<std::string, std::function<SyntheticConfig()>>>& Shapes() {
  static const auto* shapes =
      new std::vector<std::pair<std::string, std::function<SyntheticConfig()>>>{
          {"ml-100k", [] { return SyntheticConfig(); }},
          {"ml-20m", MovieLens20M},
          {"gowalla", Gowalla},
          {"legacy", Legacy}};
  return *shapes;
}

}  // namespace

absl::StatusOr<SyntheticConfig> SyntheticShape(absl::string_view name) {
  for (const auto& [shape, make] : Shapes()) {
    if (shape == name) return make();
  }
  return absl::InvalidArgumentError(absl::StrCat("synthetic: unknown shape '", name, "' (known: ",
                                                 absl::StrJoin(SyntheticShapeNames(), ", "), ")"));
}

std::vector<std::string> SyntheticShapeNames() {
  std::vector<std::string> names;
  for (const auto& entry : Shapes()) names.push_back(entry.first);
  return names;
}

}  // namespace fedmf::data
