// Test helper: exact distributions of sums of independent Bernoulli trials and their Renyi
// divergence, in long double, by brute force (no log-space tricks), to check the PBM accountants.
#ifndef FEDMF_TESTS_UNIT_COMMON_EXACT_SUM_DIVERGENCE_H_
#define FEDMF_TESTS_UNIT_COMMON_EXACT_SUM_DIVERGENCE_H_

#include <cmath>
#include <utility>
#include <vector>

namespace fedmf::dp::test_util {

// Exact pmf of a sum of independent Bernoulli trials given as (probability, count) pairs.
inline std::vector<long double> SumPmf(const std::vector<std::pair<long double, int>>& trials) {
  std::vector<long double> pmf = {1.0L};
  for (const auto& [p, count] : trials) {
    for (int t = 0; t < count; ++t) {
      std::vector<long double> next(pmf.size() + 1, 0.0L);
      for (size_t s = 0; s < pmf.size(); ++s) {
        next[s] += pmf[s] * (1 - p);
        next[s + 1] += pmf[s] * p;
      }
      pmf = std::move(next);
    }
  }
  return pmf;
}

inline long double RenyiDivergence(const std::vector<long double>& p,
                                   const std::vector<long double>& q, long double alpha) {
  long double sum = 0;
  for (size_t s = 0; s < p.size(); ++s) {
    if (p[s] > 0) sum += std::exp(std::log(q[s]) + alpha * (std::log(p[s]) - std::log(q[s])));
  }
  return std::log(sum) / (alpha - 1);
}

}  // namespace fedmf::dp::test_util

#endif  // FEDMF_TESTS_UNIT_COMMON_EXACT_SUM_DIVERGENCE_H_
