// Test data shared by the FMF DP-SGD tests (lib/fmf_sgd/, vfl_sgdmf/, hfl_sgdmf/): ratings that an
// embedding-clipped model can fit.
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_SGD_TEST_DATA_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_SGD_TEST_DATA_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"

namespace fedmf::testing {

// Users 0..users-1 and items 0..items-1 (ids = decimal indices, every one present); each user
// rates `per_user` random items with min(5, 1.5 <u, v>) for non-negative rank-3 factors with
// entries uniform in [0, 1).
inline data::RatingsDataset LowRankDataset(int users, int items, int per_user, uint64_t seed) {
  dp::Rng rng(seed);
  Eigen::MatrixXd u(users, 3), v(items, 3);
  for (Eigen::Index k = 0; k < u.size(); ++k) u.data()[k] = dp::UniformUnit(rng);
  for (Eigen::Index k = 0; k < v.size(); ++k) v.data()[k] = dp::UniformUnit(rng);
  data::RatingsBuilder b;
  for (int i = 0; i < users; ++i) b.AddUser(absl::StrCat(i));
  for (int j = 0; j < items; ++j) b.AddItem(absl::StrCat(j));
  std::vector<int> chosen(static_cast<size_t>(items));
  for (int i = 0; i < users; ++i) {
    std::iota(chosen.begin(), chosen.end(), 0);
    for (int k = 0; k < per_user; ++k) {
      std::swap(chosen[k], chosen[k + dp::UniformInt(rng, items - k)]);
      const double r = std::min(5.0, 1.5 * u.row(i).dot(v.row(chosen[k])));
      b.Add(absl::StrCat(i), absl::StrCat(chosen[k]), static_cast<float>(r), std::nullopt);
    }
  }
  return *std::move(b).Build();
}

}  // namespace fedmf::testing

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_LIB_FMF_SGD_TEST_DATA_H_
