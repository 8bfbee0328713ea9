// Shared helpers of the DPMF-RP unit tests: tiny datasets whose dense indices are the numbers the
// test writes, and a small configuration.
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_DPMF_RP_TEST_UTIL_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_DPMF_RP_TEST_UTIL_H_

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::dpmf_rp::testing {

// Users "u0".."u{n-1}" and items "i0".."i{m-1}" with dense index = number; (user, item, rating).
inline data::RatingsDataset MakeDataset(int num_users, int num_items,
                                        const std::vector<std::tuple<int, int, float>>& ratings) {
  data::RatingsBuilder builder;
  for (int u = 0; u < num_users; ++u) builder.AddUser(absl::StrCat("u", u));
  for (int i = 0; i < num_items; ++i) builder.AddItem(absl::StrCat("i", i));
  for (const auto& [u, i, r] : ratings) {
    builder.Add(absl::StrCat("u", u), absl::StrCat("i", i), r, std::nullopt);
  }
  return std::move(builder).Build().value();
}

// 20 users, 12 items, rank 3, every user in the cohort (participation 1).
inline DpmfRpConfig SmallConfig(Mechanism mechanism, Projection projection) {
  DpmfRpConfig config;
  config.num_users = 20;
  config.num_items = 12;
  config.rank = 3;
  config.mechanism = mechanism;
  config.projection = projection;
  config.compression = 3;
  config.participation = 1;
  config.max_q = 4;
  config.epsilon = 1000;
  config.rounds = 10;
  return config;
}

}  // namespace fedmf::algorithms::dpmf_rp::testing

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_DPMF_RP_TEST_UTIL_H_
