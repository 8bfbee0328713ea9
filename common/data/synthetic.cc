#include "common/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/data/portable_random.h"
#include "common/data/weight_tree.h"

// Built with -ffp-contract=off (common/data/CMakeLists.txt) so scores round the same everywhere.

namespace fedmf::data {
namespace {

constexpr double kMaxTotalRatings = 1e9;
// Exposure weights become integers (the largest 2^32, every one at least 1) so removing drawn
// items from a sampling tree is exact arithmetic.
constexpr double kWeightScale = 4294967296.0;

double MeanPerUser(const SyntheticConfig& c) {
  return c.density.has_value() ? *c.density * c.num_items : c.ratings_per_user;
}

absl::Status Bad(absl::string_view field, double value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("synthetic: ", field, " = ", value, " ", why));
}

// Power-law values (rank + offset)^-exponent assigned over a seeded random order of n entries.
std::vector<double> PowerLawOverRandomOrder(int32_t n, double exponent, double offset,
                                            PortableRandom& rng) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  rng.Shuffle(absl::MakeSpan(order));
  std::vector<double> values(n);
  for (int32_t rank = 0; rank < n; ++rank)
    values[order[rank]] = PortablePow(rank + offset, -exponent);
  return values;
}

std::vector<double> GaussianVector(size_t n, double std_dev, PortableRandom& rng) {
  std::vector<double> v(n);
  for (double& x : v) x = std_dev * rng.Normal();
  return v;
}

// Integer sampling weights proportional to `w` (all >= 0, some > 0): the largest 2^32, none 0.
std::vector<uint64_t> ToIntegerWeights(const std::vector<double>& w) {
  const double largest = *std::max_element(w.begin(), w.end());
  std::vector<uint64_t> out(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    out[i] = std::max<uint64_t>(1, static_cast<uint64_t>(w[i] / largest * kWeightScale));
  }
  return out;
}

double Dot(const double* a, const double* b, size_t n) {
  double s = 0;
  for (size_t f = 0; f < n; ++f) s += a[f] * b[f];
  return s;
}

// Step 3 of the header: centroids, memberships, the members' factors moved towards their
// centroid, and each cluster's exposure weights.
struct Taste {
  std::vector<int32_t> cluster_of_user;
  std::vector<std::vector<uint64_t>> exposure;  // per cluster, per item
};

Taste DrawTaste(const SyntheticConfig& c, const std::vector<double>& popularity,
                const std::vector<double>& q, double factor_std, std::vector<double>& p,
                PortableRandom& rng) {
  const size_t rank = static_cast<size_t>(c.rank);
  const std::vector<double> z = GaussianVector(c.taste_clusters * rank, factor_std, rng);
  Taste taste;
  taste.cluster_of_user.resize(c.num_users);
  for (int32_t& k : taste.cluster_of_user)
    k = static_cast<int32_t>(rng.UniformInt(c.taste_clusters));
  const double keep = std::sqrt(1 - c.taste_spread * c.taste_spread);
  for (int32_t u = 0; u < c.num_users; ++u) {
    const double* centroid = &z[taste.cluster_of_user[u] * rank];
    for (size_t f = 0; f < rank; ++f) {
      p[u * rank + f] = keep * centroid[f] + c.taste_spread * p[u * rank + f];
    }
  }
  // a_ci has unit variance: <z_c, q_i> has variance rank * f^4.
  const double unit = 1 / (factor_std * factor_std * std::sqrt(static_cast<double>(rank)));
  std::vector<double> logit(c.num_items);
  std::vector<double> w(c.num_items);
  for (int32_t k = 0; k < c.taste_clusters; ++k) {
    for (int32_t i = 0; i < c.num_items; ++i) {
      logit[i] = c.taste_strength * unit * Dot(&z[k * rank], &q[i * rank], rank);
    }
    const double top = *std::max_element(logit.begin(), logit.end());
    for (int32_t i = 0; i < c.num_items; ++i) w[i] = popularity[i] * PortableExp(logit[i] - top);
    taste.exposure.push_back(ToIntegerWeights(w));
  }
  return taste;
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
                      {"taste", c.taste_strength},
                      {"noise", c.noise_std},
                      {"user_bias", c.user_bias_std},
                      {"item_bias", c.item_bias_std},
                      {"interaction", c.interaction_std}};
  for (const auto& [name, value] : non_negative) {
    if (!(value >= 0 && std::isfinite(value))) return Bad(name, value, "must be finite and >= 0");
  }
  if (!std::isfinite(c.mean_score)) return Bad("mean", c.mean_score, "must be finite");
  for (size_t k = 0; k < c.star_cuts.size(); ++k) {
    if (!std::isfinite(c.star_cuts[k]) || (k > 0 && !(c.star_cuts[k] > c.star_cuts[k - 1]))) {
      return Bad("stars", c.star_cuts[k], "is not finite and above the cut before it");
    }
  }
  if (!(c.item_popularity_offset >= 1 && std::isfinite(c.item_popularity_offset))) {
    return Bad("item_offset", c.item_popularity_offset, "must be finite and >= 1");
  }
  if (!(c.user_activity_offset >= 1 && std::isfinite(c.user_activity_offset))) {
    return Bad("user_offset", c.user_activity_offset, "must be finite and >= 1");
  }
  if (c.taste_clusters < 0) return Bad("clusters", c.taste_clusters, "must be >= 0");
  if (!(c.taste_spread >= 0 && c.taste_spread <= 1)) {
    return Bad("spread", c.taste_spread, "must be in [0, 1]");
  }
  if (!(c.popularity_share >= 0 && c.popularity_share <= 1)) {
    return Bad("pop_share", c.popularity_share, "must be in [0, 1]");
  }
  if (c.taste_clusters > 0 && c.interaction_std == 0) {
    return Bad("interaction", 0, "must be > 0 with taste clusters (tastes are its factors)");
  }
  if (static_cast<double>(c.taste_clusters) * c.num_items > 1e9) {
    return Bad("clusters", c.taste_clusters,
               absl::StrCat("times items = ", c.num_items, " exceeds 1e9 exposure weights"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RatingsDataset> GenerateSynthetic(const SyntheticConfig& c) {
  if (absl::Status s = ValidateSyntheticConfig(c); !s.ok()) return s;
  const int32_t n = c.num_users;
  const int32_t m = c.num_items;
  const size_t rank = static_cast<size_t>(c.rank);
  PortableRandom rng(c.seed);

  // Step 1 of the header.
  const std::vector<double> popularity =
      PowerLawOverRandomOrder(m, c.item_popularity_exponent, c.item_popularity_offset, rng);
  const std::vector<uint64_t> popularity_weights = ToIntegerWeights(popularity);
  // Activity above the least active user's, so that user gets exactly min_ratings_per_user.
  std::vector<double> activity =
      PowerLawOverRandomOrder(n, c.user_activity_exponent, c.user_activity_offset, rng);
  const double least_active = *std::min_element(activity.begin(), activity.end());
  double activity_sum = 0;
  for (double& v : activity) activity_sum += (v -= least_active);
  const double mean = MeanPerUser(c);

  // Steps 2 and 3.
  const std::vector<double> user_bias = GaussianVector(n, c.user_bias_std, rng);
  const std::vector<double> item_bias = GaussianVector(m, c.item_bias_std, rng);
  const double factor_std = std::sqrt(c.interaction_std / std::sqrt(static_cast<double>(rank)));
  std::vector<double> p = GaussianVector(n * rank, factor_std, rng);
  const std::vector<double> q = GaussianVector(m * rank, factor_std, rng);
  const bool personal = c.taste_clusters > 0;
  Taste taste;
  if (personal) taste = DrawTaste(c, popularity, q, factor_std, p, rng);
  std::vector<WeightTree> cluster_trees;
  for (const std::vector<uint64_t>& w : taste.exposure) cluster_trees.emplace_back(w);

  RatingsBuilder builder("synthetic");
  std::vector<std::string> item_ids(m);
  for (int32_t i = 0; i < m; ++i) item_ids[i] = absl::StrCat("i", i);
  for (int32_t u = 0; u < n; ++u) builder.AddUser(absl::StrCat("u", u));
  for (int32_t i = 0; i < m; ++i) builder.AddItem(item_ids[i]);

  // Steps 4 and 5. A mixture draw costs a uniform only when both sources can be chosen.
  const bool always_popular = !personal || c.popularity_share == 1;
  const bool mixed = !always_popular && c.popularity_share > 0;
  WeightTree popular_tree(popularity_weights);
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
    WeightTree* own = personal ? &cluster_trees[taste.cluster_of_user[u]] : nullptr;
    const std::vector<uint64_t>* own_weights =
        personal ? &taste.exposure[taste.cluster_of_user[u]] : nullptr;
    drawn.clear();
    for (int64_t k = 0; k < count; ++k) {
      const bool by_popularity = always_popular || (mixed && rng.Uniform() < c.popularity_share);
      WeightTree& source = by_popularity ? popular_tree : *own;
      const size_t i = source.Find(rng.UniformInt(source.total()));
      popular_tree.Add(i, ~popularity_weights[i] + 1);  // remove: no item twice for one user
      if (own != nullptr) own->Add(i, ~(*own_weights)[i] + 1);
      drawn.push_back(i);
      float stars = 1;
      if (!c.implicit) {
        // Summed term by term in this order: the legacy shape's scores stay bit for bit.
        double score = c.mean_score + user_bias[u] + item_bias[i];
        for (size_t f = 0; f < rank; ++f) score += p[u * rank + f] * q[i * rank + f];
        score += c.noise_std * rng.Normal();
        // Compared after adding 0.5 to both sides: with cuts k + 0.5 this is exactly the
        // legacy shape's clamp(floor(score + 0.5), 1, 5), rounding included.
        const double shifted = score + 0.5;
        for (double cut : c.star_cuts) stars += shifted >= cut + 0.5 ? 1 : 0;
      }
      builder.Add(user_id, item_ids[i], stars, ++clock);
    }
    for (size_t i : drawn) {
      popular_tree.Add(i, popularity_weights[i]);
      if (own != nullptr) own->Add(i, (*own_weights)[i]);
    }
  }
  return std::move(builder).Build(DuplicatePolicy::kError);
}

}  // namespace fedmf::data
