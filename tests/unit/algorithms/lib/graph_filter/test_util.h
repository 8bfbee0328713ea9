// Test helpers of the graph filters: a small seeded implicit-feedback dataset, and the papers'
// matrices computed the brute-force way, densely and straight from their definitions (nothing of
// common/algorithms/graph_filter is used here).
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_LIB_GRAPH_FILTER_TEST_UTIL_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_LIB_GRAPH_FILTER_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SVD"
#include "absl/strings/str_cat.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::test_util {

// `users` x `items` interactions, each present with probability `density` (std::mt19937 from
// `seed`), plus one user ("u-idle") and one item ("i-idle") without any; every rating is 1.
inline data::RatingsDataset RandomImplicit(int users, int items, double density, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution present(density);
  data::RatingsBuilder builder;
  for (int u = 0; u < users; ++u) {
    builder.AddUser(absl::StrCat("u", u));
    for (int i = 0; i < items; ++i) {
      if (present(rng)) builder.Add(absl::StrCat("u", u), absl::StrCat("i", i), 1, std::nullopt);
    }
  }
  builder.AddUser("u-idle");
  for (int i = 0; i < items; ++i) builder.AddItem(absl::StrCat("i", i));
  builder.AddItem("i-idle");
  return std::move(builder).Build().value();
}

// The binary R (n x m) of `data`.
inline Eigen::MatrixXd DenseR(const data::RatingsDataset& data) {
  Eigen::MatrixXd r = Eigen::MatrixXd::Zero(data.num_users(), data.num_items());
  for (int32_t u = 0; u < data.num_users(); ++u) {
    for (int32_t i : data.user(u).indices) r(u, i) = 1;
  }
  return r;
}

// d^e on the diagonal, 0 where d = 0.
inline Eigen::MatrixXd DiagonalPower(const Eigen::VectorXd& d, double e) {
  Eigen::VectorXd p(d.size());
  for (Eigen::Index k = 0; k < d.size(); ++k) p[k] = d[k] > 0 ? std::pow(d[k], e) : 0;
  return p.asDiagonal();
}

inline Eigen::VectorXd UserDegrees(const Eigen::MatrixXd& r) { return r.rowwise().sum(); }
inline Eigen::VectorXd ItemDegrees(const Eigen::MatrixXd& r) { return r.colwise().sum(); }

// R~ = U^-alpha R V^(alpha-1) (PriviRec eq. 1).
inline Eigen::MatrixXd DenseNormalized(const Eigen::MatrixXd& r, double alpha) {
  return DiagonalPower(UserDegrees(r), -alpha) * r * DiagonalPower(ItemDegrees(r), alpha - 1);
}

// P~ = V^-1/2 R^T U^-1 R V^-1/2 (the formula at alpha = 1/2).
inline Eigen::MatrixXd DenseGramHalf(const Eigen::MatrixXd& r) {
  const Eigen::MatrixXd v = DiagonalPower(ItemDegrees(r), -0.5);
  return v * r.transpose() * DiagonalPower(UserDegrees(r), -1) * r * v;
}

// The top-k right singular vectors of `normalized` (m x k), from Eigen's dense SVD.
inline Eigen::MatrixXd DenseTopRightSingularVectors(const Eigen::MatrixXd& normalized, int k) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(normalized, Eigen::ComputeFullV);
  return svd.matrixV().leftCols(k);  // singular values come sorted, largest first
}

inline Eigen::VectorXd DenseSingularValues(const Eigen::MatrixXd& normalized) {
  return Eigen::JacobiSVD<Eigen::MatrixXd>(normalized).singularValues();
}

// F_IDL = V^-1/2 S S^T V^1/2 (PriviRec eq. 3).
inline Eigen::MatrixXd DenseIdealLowPass(const Eigen::MatrixXd& r, const Eigen::MatrixXd& s) {
  return DiagonalPower(ItemDegrees(r), -0.5) * s * s.transpose() *
         DiagonalPower(ItemDegrees(r), 0.5);
}

// The participant ids 1..n of a fixed population of n users (every sum's contributors).
inline std::vector<uint32_t> ParticipantIds(int n) {
  std::vector<uint32_t> ids;
  for (int u = 1; u <= n; ++u) ids.push_back(static_cast<uint32_t>(u));
  return ids;
}

}  // namespace fedmf::test_util

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_LIB_GRAPH_FILTER_TEST_UTIL_H_
