// Samplers over any 64-bit uniform random bit generator (e.g. dp::Rng). Each states its method so
// results are reproducible. Integer-valued ones are EXACT: uniform integers (rejection), Bernoulli
// and binomial (lazy comparison of uniform bits with the binary expansion of p: exact for the given
// double p). Real-valued ones are exact transforms evaluated in double precision; they call
// std::log/std::sqrt, so they are bit-reproducible for one libm and otherwise may differ in the
// last ulp. Never std::*_distribution, whose algorithms are implementation-defined.
#ifndef FEDMF_COMMON_DP_SAMPLERS_H_
#define FEDMF_COMMON_DP_SAMPLERS_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <utility>

namespace fedmf::dp {

template <typename G>
concept Urbg64 = std::uniform_random_bit_generator<G> &&(G::min() == 0) &&
                 (G::max() == std::numeric_limits<uint64_t>::max());

// Uniform on the grid {0, 2^-53, ..., 1 - 2^-53}: the top 53 bits of one draw.
template <Urbg64 G>
double UniformUnit(G& g) {
  return static_cast<double>(g() >> 11) * 0x1p-53;
}

// Uniform on the grid {2^-53, ..., 1}: never 0, so its logarithm is finite.
template <Urbg64 G>
double UniformPositiveUnit(G& g) {
  return static_cast<double>((g() >> 11) + 1) * 0x1p-53;
}

// Exactly uniform on [0, n), n >= 1 (Lemire's multiply-and-reject).
template <Urbg64 G>
uint64_t UniformInt(G& g, uint64_t n) {
  unsigned __int128 m = static_cast<unsigned __int128>(g()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<unsigned __int128>(g()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

// The binary expansion of a double p in (0, 1): p = 0.b1 b2 b3 ... with b_{z+1} = 1 the leading one
// and exactly 53 significant bits b_{z+1} ... b_{z+53} (the rest are zero).
class BinaryExpansion {
 public:
  explicit BinaryExpansion(double p) {
    int exponent = 0;
    const double fraction = std::frexp(p, &exponent);  // p = fraction * 2^exponent, exact
    mantissa_ = static_cast<uint64_t>(std::ldexp(fraction, 53));
    leading_zeros_ = -exponent;
  }
  // Bits 64w+1 ... 64w+64 as one word, bit 64w+1 most significant.
  uint64_t Word(int w) const {
    const int shift = 64 * w + 11 - leading_zeros_;
    if (shift >= 64 || shift <= -64) return 0;
    return shift >= 0 ? mantissa_ << shift : mantissa_ >> -shift;
  }
  // True when word w holds the last nonzero bit: later words are zero.
  bool IsLastWord(int w) const { return 64 * w + 11 - leading_zeros_ >= 0; }
  // Bit number `position` (1-based).
  bool Bit(int position) const {
    const int index = leading_zeros_ + 53 - position;  // bit index inside the mantissa
    return index >= 0 && index < 53 && ((mantissa_ >> index) & 1);
  }
  int last_position() const { return leading_zeros_ + 53; }

 private:
  uint64_t mantissa_ = 0;
  int leading_zeros_ = 0;
};

// Exact Bernoulli(p) for the double p (p <= 0 -> false, p >= 1 -> true): compares an infinite
// uniform bit string U with p word by word and returns U < p. One draw except with probability
// 2^-64 per extra word.
template <Urbg64 G>
bool Bernoulli(G& g, double p) {
  if (!(p > 0)) return false;
  if (p >= 1) return true;
  const BinaryExpansion bits(p);
  for (int w = 0;; ++w) {
    const uint64_t u = g();
    const uint64_t pw = bits.Word(w);
    if (u != pw) return u < pw;
    if (bits.IsLastWord(w)) return false;  // U's prefix equals p, so U >= p
  }
}

// Exact Binomial(trials, p) for the double p. Bit-sliced: up to 64 independent comparisons
// U_i < p advance together, one random word per bit of p, until every lane has differed from p
// (about log2(lanes) + 2 words per 64 trials).
template <Urbg64 G>
uint64_t Binomial(G& g, uint64_t trials, double p) {
  if (trials == 0 || !(p > 0)) return 0;
  if (p >= 1) return trials;
  const BinaryExpansion bits(p);
  uint64_t count = 0;
  for (uint64_t remaining = trials; remaining > 0;) {
    const uint64_t lanes = std::min<uint64_t>(remaining, 64);
    remaining -= lanes;
    if (lanes == 1) {
      count += Bernoulli(g, p) ? 1 : 0;
      continue;
    }
    uint64_t undecided = lanes == 64 ? ~uint64_t{0} : (uint64_t{1} << lanes) - 1;
    uint64_t below = 0;  // lanes already known to have U_i < p
    for (int position = 1; undecided != 0 && position <= bits.last_position(); ++position) {
      const uint64_t r = g();  // bit `position` of every lane's U_i
      if (bits.Bit(position)) {
        below |= undecided & ~r;  // U_i has 0 where p has 1
        undecided &= r;
      } else {
        undecided &= ~r;  // U_i has 1 where p has 0: U_i > p
      }
    }
    count += static_cast<uint64_t>(std::popcount(below));  // lanes equal to p are U_i >= p
  }
  return count;
}

// Two independent N(0, 1) by Marsaglia's polar method on 53-bit uniforms.
template <Urbg64 G>
std::pair<double, double> StandardNormalPair(G& g) {
  for (;;) {
    const double u = 2 * UniformUnit(g) - 1;
    const double v = 2 * UniformUnit(g) - 1;
    const double s = u * u + v * v;
    if (s < 1 && s > 0) {
      const double factor = std::sqrt(-2 * std::log(s) / s);
      return {u * factor, v * factor};
    }
  }
}

template <Urbg64 G>
double StandardNormal(G& g) {
  return StandardNormalPair(g).first;
}

// Exp(1) with an untruncated tail: by memorylessness Exp(1) = N ln 2 + R, N ~ Geometric(1/2) (the
// number of leading zero coin flips, unbounded) and R ~ Exp(1) conditioned on [0, ln 2), drawn by
// inversion R = -log(1 - U/2).
template <Urbg64 G>
double Exponential(G& g) {
  uint64_t n = 0;
  for (uint64_t word = g();; word = g()) {
    if (word != 0) {
      n += static_cast<uint64_t>(std::countr_zero(word));
      break;
    }
    n += 64;
  }
  return static_cast<double>(n) * std::numbers::ln2 - std::log1p(-0.5 * UniformUnit(g));
}

// Laplace(0, b): density exp(-|x|/b) / (2b). A fair sign times b * Exp(1).
template <Urbg64 G>
double Laplace(G& g, double b) {
  const double magnitude = b * Exponential(g);
  return (g() >> 63) ? -magnitude : magnitude;
}

// Gamma(shape, 1), shape > 0: Marsaglia-Tsang (2000) squeeze-free acceptance for shape >= 1;
// for shape < 1, Gamma(shape) = Gamma(shape + 1) * U^(1/shape), formed in log space.
template <Urbg64 G>
double Gamma(G& g, double shape) {
  if (shape < 1) {
    const double log_u = std::log(UniformPositiveUnit(g));
    // Gamma(shape + 1) U^(1/shape). With U^(1/shape) below e^-860 the product underflows to 0
    // unless Gamma(shape + 1) > e^110 (probability below e^-1e47), so that draw is skipped: with
    // shape = 1/n (Laplace shares) 40% of the draws end here at n = 943.
    if (log_u / shape < -860) return 0;
    return std::exp(std::log(Gamma(g, shape + 1)) + log_u / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = StandardNormal(g);
    const double t = 1 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    const double log_u = std::log(UniformPositiveUnit(g));
    if (log_u < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_SAMPLERS_H_
