#include "common/dp/discrete_gaussian.h"

#include <bit>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {
namespace {

using U128 = unsigned __int128;

constexpr uint64_t kMaxNum = uint64_t{1} << 48;
constexpr uint64_t kMaxDen = uint64_t{1} << 32;
// Bernoulli(gamma / K) needs den * K < 2^128; the loop of Algorithm 1 reaches K with probability
// 1/(K-1)!, so this cap is never met in practice and reported as an error if it were.
constexpr uint64_t kMaxK = uint64_t{1} << 20;

// Exactly uniform on [0, bound), bound >= 1.
U128 UniformU128(Rng& rng, U128 bound) {
  if (bound <= std::numeric_limits<uint64_t>::max()) {
    return UniformInt(rng, static_cast<uint64_t>(bound));
  }
  const uint64_t high_limit = static_cast<uint64_t>((bound - 1) >> 64);
  const uint64_t high_mask = ~uint64_t{0} >> std::countl_zero(high_limit);
  for (;;) {
    const U128 x = (static_cast<U128>(rng() & high_mask) << 64) | rng();
    if (x < bound) return x;
  }
}

// Bernoulli(exp(-num/den)) for num <= den (CKS Algorithm 1, gamma in [0, 1]).
absl::StatusOr<bool> BernoulliExpMinusAtMostOne(Rng& rng, U128 num, U128 den) {
  for (uint64_t k = 1; k <= kMaxK; ++k) {
    // Bernoulli(num / (den * k)); den * k < 2^128 because den <= 2^101 here and k <= 2^20.
    if (UniformU128(rng, den * k) >= num) return k % 2 == 1;
  }
  return absl::InternalError("BernoulliExpMinus: Algorithm 1 loop exceeded 2^20 steps");
}

uint64_t FloorSqrt(uint64_t x) {
  uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(x)));
  while (r > 0 && static_cast<U128>(r) * r > x) --r;
  while (static_cast<U128>(r + 1) * (r + 1) <= x) ++r;
  return r;
}

}  // namespace

absl::StatusOr<Rational> RationalUpperBound(double x) {
  if (!std::isfinite(x) || !(x > 0) || x > static_cast<double>(kMaxNum)) {
    return absl::InvalidArgumentError(
        absl::StrCat("RationalUpperBound: value ", x, " is not in (0, 2^48]"));
  }
  // Largest k <= 32 with x * 2^k <= 2^48, then round the scaled value up (both steps exact in
  // double: ldexp scales by a power of two and ceil is exact).
  int k = 32;
  while (k > 0 && std::ldexp(x, k) > static_cast<double>(kMaxNum)) --k;
  return Rational{static_cast<uint64_t>(std::ceil(std::ldexp(x, k))), uint64_t{1} << k};
}

absl::StatusOr<bool> BernoulliExpMinus(Rng& rng, U128 num, U128 den) {
  if (den == 0 || den > (U128{1} << 101)) {
    return absl::InvalidArgumentError("BernoulliExpMinus: denominator must be in [1, 2^101]");
  }
  if (num <= den) return BernoulliExpMinusAtMostOne(rng, num, den);
  // exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))): independent factors.
  const U128 whole = num / den;
  for (U128 i = 0; i < whole; ++i) {
    absl::StatusOr<bool> one = BernoulliExpMinusAtMostOne(rng, 1, 1);
    if (!one.ok() || !*one) return one;
  }
  return BernoulliExpMinusAtMostOne(rng, num % den, den);
}

absl::StatusOr<int64_t> DiscreteLaplace(Rng& rng, uint64_t t) {
  if (t == 0 || t > kMaxDen) {
    return absl::InvalidArgumentError(
        absl::StrCat("DiscreteLaplace: scale t=", t, " is not in [1, 2^32]"));
  }
  for (;;) {
    const uint64_t u = UniformInt(rng, t);
    absl::StatusOr<bool> keep = BernoulliExpMinus(rng, u, t);
    if (!keep.ok()) return keep.status();
    if (!*keep) continue;
    uint64_t v = 0;  // Geometric(1 - 1/e)
    for (;;) {
      absl::StatusOr<bool> more = BernoulliExpMinus(rng, 1, 1);
      if (!more.ok()) return more.status();
      if (!*more) break;
      ++v;
    }
    if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - u) / t) {
      return absl::InternalError("DiscreteLaplace: sample exceeds int64");
    }
    const int64_t x = static_cast<int64_t>(u + t * v);
    const bool negative = (rng() >> 63) != 0;
    if (negative && x == 0) continue;  // so that 0 is not counted twice
    return negative ? -x : x;
  }
}

absl::StatusOr<DiscreteGaussianSampler> DiscreteGaussianSampler::Create(Rational variance) {
  if (variance.num == 0 || variance.num > kMaxNum || variance.den == 0 || variance.den > kMaxDen) {
    return absl::InvalidArgumentError(
        absl::StrCat("DiscreteGaussianSampler: variance ", variance.num, "/", variance.den,
                     " needs numerator in [1, 2^48] and denominator in [1, 2^32]"));
  }
  return DiscreteGaussianSampler(variance);
}

DiscreteGaussianSampler::DiscreteGaussianSampler(Rational variance) : variance_(variance) {
  // floor(sqrt(num/den)) = floor(sqrt(floor(num/den))) because squares are integers.
  t_ = FloorSqrt(variance.num / variance.den) + 1;
  const U128 t_den = static_cast<U128>(t_) * variance.den;  // < 2^25 * 2^32
  y_limit_ = static_cast<uint64_t>(((U128{1} << 63) - 1) / t_den);
  // 2 num den t^2 <= 8 num max(num, den) <= 2^99.
  gamma_den_ = 2 * static_cast<U128>(variance.num) * variance.den * t_ * t_;
}

absl::StatusOr<int64_t> DiscreteGaussianSampler::Sample(Rng& rng) const {
  const U128 t_den = static_cast<U128>(t_) * variance_.den;
  for (;;) {
    absl::StatusOr<int64_t> y = DiscreteLaplace(rng, t_);
    if (!y.ok()) return y.status();
    const uint64_t magnitude = static_cast<uint64_t>(*y < 0 ? -*y : *y);
    // Accept with probability exp(-(|y| - sigma^2/t)^2 / (2 sigma^2))
    //   = exp(-(|y| t den - num)^2 / (2 num den t^2)).
    if (magnitude <= y_limit_) {
      const U128 scaled = magnitude * t_den;  // < 2^63
      const U128 diff = scaled >= variance_.num ? scaled - variance_.num : variance_.num - scaled;
      absl::StatusOr<bool> accept = BernoulliExpMinus(rng, diff * diff, gamma_den_);
      if (!accept.ok()) return accept.status();
      if (*accept) return *y;
      continue;
    }
    // The exponent exceeds that at y_limit_, whose integer part `whole` (>= 2^25) we can certify;
    // the acceptance test starts with `whole` Bernoulli(1/e) factors.
    const U128 diff = y_limit_ * t_den - variance_.num;
    const U128 whole = diff * diff / gamma_den_;
    bool rejected = false;
    for (U128 i = 0; i < whole && !rejected; ++i) {
      absl::StatusOr<bool> one = BernoulliExpMinus(rng, 1, 1);
      if (!one.ok()) return one.status();
      rejected = !*one;
    }
    if (!rejected) {
      return absl::InternalError(
          "DiscreteGaussianSampler: proposal beyond 128-bit range survived exp(-2^25) test");
    }
  }
}

}  // namespace fedmf::dp
