// Numerically stable arithmetic on nonnegative numbers represented by their natural logarithm
// (log 0 = -infinity), used by the privacy accountant to sum terms that would under- or overflow.
#ifndef FEDMF_COMMON_DP_LOG_SPACE_H_
#define FEDMF_COMMON_DP_LOG_SPACE_H_

#include <cstdint>
#include <limits>

#include "absl/types/span.h"

namespace fedmf::dp {

inline constexpr double kLogZero = -std::numeric_limits<double>::infinity();

// log(exp(log_x) + exp(log_y)).
double LogAdd(double log_x, double log_y);

// log(sum_i exp(log_terms[i])); kLogZero for an empty span. +infinity if any term is +infinity.
double LogSumExp(absl::Span<const double> log_terms);

// log(erfc(x)), accurate also where erfc(x) underflows (x > ~26).
double LogErfc(double x);

// log(n choose k) for 0 <= k <= n; kLogZero outside that range.
double LogBinomial(int64_t n, int64_t k);

// log(1 + exp(x)) without overflow.
double Log1pExp(double x);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_LOG_SPACE_H_
