#include "common/algorithms/hdpmf/privacy_spec.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::hdpmf {
namespace {

struct Groups {
  double f_con, f_mod, w_con, w_mod;
};

// Distinct public streams of the spec's seed for the two populations.
constexpr uint64_t kUserStream = 1;
constexpr uint64_t kItemStream = 2;

int64_t GroupSize(double fraction, int64_t n) {
  return static_cast<int64_t>(std::llround(fraction * static_cast<double>(n)));
}

std::vector<double> Weights(const Groups& g, int64_t n, uint64_t seed, uint64_t stream) {
  dp::Rng rng(seed, stream);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // Fisher-Yates with exact uniform integers: the first round(f_con n) are conservative, the next
  // round(f_mod n) moderate.
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(order[i], order[dp::UniformInt(rng, static_cast<uint64_t>(i) + 1)]);
  }
  const int64_t n_con = std::min(n, GroupSize(g.f_con, n));
  const int64_t n_mod = std::min(n - n_con, GroupSize(g.f_mod, n));
  std::vector<double> w(static_cast<size_t>(n), 1.0);
  for (int64_t k = 0; k < n_con + n_mod; ++k) {
    const double lo = k < n_con ? g.w_con : g.w_mod;
    const double hi = k < n_con ? g.w_mod : 1.0;
    w[order[k]] = lo + (hi - lo) * dp::UniformUnit(rng);
  }
  return w;
}

absl::Status CheckGroups(absl::string_view who, const Groups& g) {
  const auto bad = [&](absl::string_view field, double value, absl::string_view need) {
    return absl::InvalidArgumentError(
        absl::StrCat("hdpmf privacy spec: ", who, "_", field, "=", value, ", need ", need));
  };
  if (!(g.f_con >= 0 && g.f_con <= 1)) return bad("f_con", g.f_con, "in [0, 1]");
  if (!(g.f_mod >= 0 && g.f_con + g.f_mod <= 1)) return bad("f_mod", g.f_mod, "in [0, 1 - f_con]");
  if (!(g.w_con > 0 && g.w_con <= 1)) return bad("w_con", g.w_con, "in (0, 1]");
  if (!(g.w_mod >= g.w_con && g.w_mod <= 1)) return bad("w_mod", g.w_mod, "in [w_con, 1]");
  return absl::OkStatus();
}

Groups UserGroups(const v1::HdpmfPrivacySpec& s) {
  return {s.user_f_con(), s.user_f_mod(), s.user_w_con(), s.user_w_mod()};
}
Groups ItemGroups(const v1::HdpmfPrivacySpec& s) {
  return {s.item_f_con(), s.item_f_mod(), s.item_w_con(), s.item_w_mod()};
}

double SmallestWeight(const Groups& g, int64_t n) {
  if (std::min(n, GroupSize(g.f_con, n)) > 0) return g.w_con;
  if (GroupSize(g.f_mod, n) > 0) return g.w_mod;
  return 1.0;
}

}  // namespace

v1::HdpmfPrivacySpec DefaultPrivacySpec(uint64_t seed) {
  v1::HdpmfPrivacySpec s;
  s.set_user_f_con(0.54);
  s.set_user_f_mod(0.37);
  s.set_user_w_con(0.1);
  s.set_user_w_mod(0.5);
  s.set_item_f_con(0.33);
  s.set_item_f_mod(0.33);
  s.set_item_w_con(0.1);
  s.set_item_w_mod(0.5);
  s.set_seed(seed);
  return s;
}

absl::Status ValidatePrivacySpec(const v1::HdpmfPrivacySpec& spec) {
  if (absl::Status s = CheckGroups("user", UserGroups(spec)); !s.ok()) return s;
  return CheckGroups("item", ItemGroups(spec));
}

std::vector<double> UserWeights(const v1::HdpmfPrivacySpec& spec, int64_t num_users) {
  return Weights(UserGroups(spec), num_users, spec.seed(), kUserStream);
}

std::vector<double> ItemWeights(const v1::HdpmfPrivacySpec& spec, int64_t num_items) {
  return Weights(ItemGroups(spec), num_items, spec.seed(), kItemStream);
}

double SmallestRatingWeight(const v1::HdpmfPrivacySpec& spec, int64_t num_users,
                            int64_t num_items) {
  return SmallestWeight(UserGroups(spec), num_users) * SmallestWeight(ItemGroups(spec), num_items);
}

}  // namespace fedmf::algorithms::hdpmf
