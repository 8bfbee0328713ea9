// Sample moments with CLT standard errors, shared by the statistical tests of fedmf::dp. A test
// asserts |estimate - theory| <= kSigmas * standard error; with fixed seeds the outcome is
// deterministic, and a correct sampler fails a 5-sigma check with probability below 6e-7.
#ifndef FEDMF_TESTS_UNIT_COMMON_DP_TEST_STATS_H_
#define FEDMF_TESTS_UNIT_COMMON_DP_TEST_STATS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

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
