// Sample moments with CLT standard errors, shared by the statistical tests of fedmf::dp (and of
// the algorithms drawing its noise). A test asserts |estimate - theory| <= kSigmas * standard
// error; with fixed seeds the outcome is deterministic, and a correct sampler fails a 5-sigma
// check with probability below 6e-7.
#ifndef FEDMF_TESTS_UNIT_COMMON_DP_TEST_STATS_H_
#define FEDMF_TESTS_UNIT_COMMON_DP_TEST_STATS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::dp::testing {

inline constexpr double kSigmas = 5;

struct Moments {
  double mean = 0;
  double mean_se = 0;      // sqrt(s^2 / n)
  double variance = 0;     // unbiased sample variance s^2
  double variance_se = 0;  // sqrt((m4 - m2^2) / n), the CLT standard error of s^2
};

inline Moments ComputeMoments(const std::vector<double>& xs) {
  const double n = static_cast<double>(xs.size());
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= n;
  double m2 = 0, m4 = 0;
  for (double x : xs) {
    const double d2 = (x - mean) * (x - mean);
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= n;
  m4 /= n;
  Moments m;
  m.mean = mean;
  m.variance = m2 * n / (n - 1);
  m.mean_se = std::sqrt(m.variance / n);
  m.variance_se = std::sqrt(std::max(m4 - m2 * m2, 0.0) / n);
  return m;
}

// Two samples of equal size from one distribution: their two-sample Kolmogorov-Smirnov distance
// stays below its alpha = 1e-6 critical value, D <= sqrt(ln(2 / alpha) / 2) sqrt(2 / n) (0.0269
// at n = 20,000), and their means and variances agree within kSigmas standard errors.
inline void ExpectSameDistribution(std::vector<double> a, std::vector<double> b) {
  ASSERT_EQ(a.size(), b.size());
  const double n = static_cast<double>(a.size());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double d = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const double t = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= t) ++i;
    while (j < b.size() && b[j] <= t) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) - static_cast<double>(j)) / n);
  }
  EXPECT_LE(d, std::sqrt(std::log(2 / 1e-6) / 2) * std::sqrt(2.0 / n));
  const Moments ma = ComputeMoments(a), mb = ComputeMoments(b);
  EXPECT_NEAR(ma.mean, mb.mean, kSigmas * std::hypot(ma.mean_se, mb.mean_se));
  EXPECT_NEAR(ma.variance, mb.variance, kSigmas * std::hypot(ma.variance_se, mb.variance_se));
}

// Standard error of a frequency estimate of probability p from n draws.
inline double FrequencySe(double p, double n) { return std::sqrt(p * (1 - p) / n); }

// Sum mod 2^bits of the clients' encodings, as SecAgg would deliver it.
inline std::vector<uint64_t> ModularSum(const std::vector<std::vector<uint64_t>>& encodings,
                                        int bits) {
  std::vector<uint64_t> sum(encodings.front().size(), 0);
  for (const auto& e : encodings) {
    for (size_t j = 0; j < sum.size(); ++j) sum[j] = (sum[j] + e[j]) & ((uint64_t{1} << bits) - 1);
  }
  return sum;
}

// Parameters of a SecAgg noise mechanism (GaussianSecAggParams or
// DistributedDiscreteGaussianParams), the fields the tests vary.
template <typename Params>
Params SecAggParams(int64_t dim, double clip, double sigma, int64_t n_min, int64_t n_max,
                    double scale) {
  Params p;
  p.dim = dim;
  p.clip_norm = clip;
  p.noise_std = sigma;
  p.min_clients = n_min;
  p.max_clients = n_max;
  p.scale = scale;
  return p;
}

}  // namespace fedmf::dp::testing

#endif  // FEDMF_TESTS_UNIT_COMMON_DP_TEST_STATS_H_
