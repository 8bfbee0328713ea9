// k-ary randomized response (Warner 1965; Kairouz, Oh, Viswanath 2014, "direct encoding"): a
// client holding one value v in [0, k) reports v with probability p = e^eps / (e^eps + k - 1) and
// each other value with probability q = 1 / (e^eps + k - 1). p / q = e^eps, so one report is pure
// eps-LDP for the whole input. From n reports with c_j of them equal to j, (c_j - n q) / (p - q)
// is an unbiased estimate of how many clients hold j.
#ifndef FEDMF_COMMON_DP_KARY_RR_H_
#define FEDMF_COMMON_DP_KARY_RR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

class KaryRr {
 public:
  // InvalidArgument unless k >= 2 and epsilon is finite and > 0.
  static absl::StatusOr<KaryRr> Create(int64_t k, double epsilon);

  // The report of a client holding `value` (InvalidArgument outside [0, k)).
  absl::StatusOr<int64_t> Randomize(int64_t value, Rng& rng) const;

  // The unbiased estimate of how many of `reports` clients hold a value reported `count` times.
  double Estimate(double count, double reports) const { return (count - reports * q_) / (p_ - q_); }

  int64_t k() const { return k_; }
  double epsilon() const { return epsilon_; }
  double keep_probability() const { return p_; }  // p

 private:
  KaryRr(int64_t k, double epsilon, double p, double q) : k_(k), epsilon_(epsilon), p_(p), q_(q) {}

  int64_t k_;
  double epsilon_;
  double p_;
  double q_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_KARY_RR_H_
