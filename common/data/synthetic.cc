#include "common/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/data/portable_random.h"

// Built with -ffp-contract=off (common/data/CMakeLists.txt) so scores round the same everywhere.

namespace fedmf::data {
namespace {

constexpr double kMaxTotalRatings = 1e9;
// Popularity weights are integers (scaled by 2^32, at least 1) so removing drawn items from the
// sampling tree is exact arithmetic.
constexpr double kWeightScale = 4294967296.0;

// Fenwick tree over integer item weights: draw an item with probability proportional to its
// weight in O(log m), and set weights to zero / restore them in O(log m).
class WeightTree {
 public:
  explicit WeightTree(const std::vector<uint64_t>& weights) : tree_(weights.size() + 1, 0) {
    for (size_t i = 1; i < tree_.size(); ++i) {
      tree_[i] += weights[i - 1];
      const size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
      total_ += weights[i - 1];
    }
    while (top_bit_ * 2 < tree_.size()) top_bit_ *= 2;
  }
  uint64_t total() const { return total_; }
  // Adds `delta` (two's complement for removal) to item i's weight.
  void Add(size_t i, uint64_t delta) {
    total_ += delta;
    for (size_t k = i + 1; k < tree_.size(); k += k & (~k + 1)) tree_[k] += delta;
  }
  // The item whose cumulative weight interval contains target (0 <= target < total()).
  size_t Find(uint64_t target) const {
    size_t pos = 0;
    for (size_t step = top_bit_; step > 0; step /= 2) {
      if (pos + step < tree_.size() && tree_[pos + step] <= target) {
        pos += step;
        target -= tree_[pos];
      }
    }
    return pos;
  }

 private:
  std::vector<uint64_t> tree_;
  uint64_t total_ = 0;
  size_t top_bit_ = 1;
};

double MeanPerUser(const SyntheticConfig& c) {
  return c.density.has_value() ? *c.density * c.num_items : c.ratings_per_user;
}

absl::Status Bad(absl::string_view field, double value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("synthetic: ", field, " = ", value, " ", why));
}

// Power-law values (rank + 1)^-exponent assigned over a seeded random order of n entries.
std::vector<double> PowerLawOverRandomOrder(int32_t n, double exponent, PortableRandom& rng) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  rng.Shuffle(absl::MakeSpan(order));
  std::vector<double> values(n);
  for (int32_t rank = 0; rank < n; ++rank) values[order[rank]] = PortablePow(rank + 1.0, -exponent);
  return values;
}

std::vector<double> GaussianVector(size_t n, double std_dev, PortableRandom& rng) {
  std::vector<double> v(n);
  for (double& x : v) x = std_dev * rng.Normal();
  return v;
}

}  // namespace

absl::Status ValidateSyntheticConfig(const SyntheticConfig& c) {
  if (c.num_users < 1) return Bad("users", c.num_users, "must be at least 1");
  if (c.num_items < 1) return Bad("items", c.num_items, "must be at least 1");
  if (c.rank < 1) return Bad("rank", c.rank, "must be at least 1");
  if (c.density.has_value() && !(*c.density > 0 && *c.density <= 1)) {
    return Bad("density", *c.density, "must be in (0, 1]");
  }
  if (!c.density.has_value()) {
    if (!(c.ratings_per_user >= 1)) return Bad("per_user", c.ratings_per_user, "must be >= 1");
    if (c.ratings_per_user > c.num_items) {
      return Bad("per_user", c.ratings_per_user, absl::StrCat("exceeds items = ", c.num_items));
    }
  }
  const double mean = MeanPerUser(c);
  if (c.min_ratings_per_user < 1)
    return Bad("min_per_user", c.min_ratings_per_user, "must be >= 1");
  if (c.min_ratings_per_user > mean) {
    return Bad("min_per_user", c.min_ratings_per_user,
               absl::StrCat("exceeds the mean ratings per user ", mean));
  }
  if (mean * c.num_users > kMaxTotalRatings) {
    return Bad("users", c.num_users,
               absl::StrCat("times ", mean, " ratings per user exceeds ", kMaxTotalRatings));
  }
  const struct {
    const char* name;
    double value;
  } non_negative[] = {{"item_exp", c.item_popularity_exponent},
                      {"user_exp", c.user_activity_exponent},
                      {"noise", c.noise_std},
                      {"user_bias", c.user_bias_std},
                      {"item_bias", c.item_bias_std},
                      {"interaction", c.interaction_std}};
  for (const auto& [name, value] : non_negative) {
    if (!(value >= 0 && std::isfinite(value))) return Bad(name, value, "must be finite and >= 0");
  }
  if (!std::isfinite(c.mean_score)) return Bad("mean", c.mean_score, "must be finite");
  return absl::OkStatus();
}

absl::StatusOr<RatingsDataset> GenerateSynthetic(const SyntheticConfig& c) {
  if (absl::Status s = ValidateSyntheticConfig(c); !s.ok()) return s;
  const int32_t n = c.num_users;
  const int32_t m = c.num_items;
  const size_t rank = static_cast<size_t>(c.rank);
  PortableRandom rng(c.seed);

  // Popularity and activity; every draw from `rng` happens in this fixed order.
  const std::vector<double> popularity =
      PowerLawOverRandomOrder(m, c.item_popularity_exponent, rng);
  std::vector<uint64_t> weights(m);
  for (int32_t i = 0; i < m; ++i) {
    weights[i] = std::max<uint64_t>(1, static_cast<uint64_t>(popularity[i] * kWeightScale));
  }
  // Activity above the least active user's, so that user gets exactly min_ratings_per_user.
  std::vector<double> activity = PowerLawOverRandomOrder(n, c.user_activity_exponent, rng);
  const double least_active = *std::min_element(activity.begin(), activity.end());
  double activity_sum = 0;
  for (double& v : activity) activity_sum += (v -= least_active);
  const double mean = MeanPerUser(c);

  const std::vector<double> user_bias = GaussianVector(n, c.user_bias_std, rng);
  const std::vector<double> item_bias = GaussianVector(m, c.item_bias_std, rng);
  const double factor_std = std::sqrt(c.interaction_std / std::sqrt(static_cast<double>(rank)));
  const std::vector<double> p = GaussianVector(n * rank, factor_std, rng);
  const std::vector<double> q = GaussianVector(m * rank, factor_std, rng);

  RatingsBuilder builder("synthetic");
  std::vector<std::string> item_ids(m);
  for (int32_t i = 0; i < m; ++i) item_ids[i] = absl::StrCat("i", i);
  for (int32_t u = 0; u < n; ++u) builder.AddUser(absl::StrCat("u", u));
  for (int32_t i = 0; i < m; ++i) builder.AddItem(item_ids[i]);

  WeightTree tree(weights);
  std::vector<size_t> drawn;
  int64_t clock = 0;
  for (int32_t u = 0; u < n; ++u) {
    // All users equally active (exponent 0, or one user): everyone gets the mean.
    const double share = activity_sum == 0
                             ? mean
                             : c.min_ratings_per_user +
                                   (mean - c.min_ratings_per_user) * activity[u] * n / activity_sum;
    const int64_t count = std::min<int64_t>(m, static_cast<int64_t>(std::floor(share + 0.5)));
    const std::string user_id = absl::StrCat("u", u);
    drawn.clear();
    for (int64_t k = 0; k < count; ++k) {
      const size_t i = tree.Find(rng.UniformInt(tree.total()));
      tree.Add(i, ~weights[i] + 1);  // remove: no item twice for one user
      drawn.push_back(i);
      double score = c.mean_score + user_bias[u] + item_bias[i];
      for (size_t f = 0; f < rank; ++f) score += p[u * rank + f] * q[i * rank + f];
      score += c.noise_std * rng.Normal();
      const double stars = std::clamp(std::floor(score + 0.5), 1.0, 5.0);
      builder.Add(user_id, item_ids[i], static_cast<float>(stars), ++clock);
    }
    for (size_t i : drawn) tree.Add(i, weights[i]);
  }
  return std::move(builder).Build(DuplicatePolicy::kError);
}

}  // namespace fedmf::data
