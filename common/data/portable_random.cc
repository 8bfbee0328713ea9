#include "common/data/portable_random.h"

#include <cmath>
#include <limits>

// Built with -ffp-contract=off (common/data/CMakeLists.txt): a fused multiply-add would round
// differently on machines that have one.

namespace fedmf::data {
namespace {

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (the fdlibm constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kSqrtHalf = 0.70710678118654752440;

}  // namespace

double PortableRandom::Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

uint64_t PortableRandom::UniformInt(uint64_t n) {
  // Accept x below the largest multiple of n that fits, so x % n is exactly uniform.
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do {
    x = engine_();
  } while (x >= limit);
  return x % n;
}

double PortableRandom::Normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2 * Uniform() - 1;
    v = 2 * Uniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  // std::sqrt is correctly rounded by IEEE-754, so it is portable.
  const double scale = std::sqrt(-2 * PortableLog(s) / s);
  spare_normal_ = v * scale;
  has_spare_normal_ = true;
  return u * scale;
}

double PortableLog(double x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(t), t = (m - 1) / (m + 1),
  // |t| <= 0.1716, summed as the odd series t + t^3/3 + ... up to t^27 (next term < 1e-22).
  int e;
  double m = std::frexp(x, &e);  // exact; m in [1/2, 1)
  if (m < kSqrtHalf) {
    m *= 2;
    --e;
  }
  const double t = (m - 1) / (m + 1);
  const double t2 = t * t;
  double series = 1.0 / 27;
  for (int k = 25; k >= 1; k -= 2) series = 1.0 / k + t2 * series;
  return e * kLn2Hi + (2 * t * series + e * kLn2Lo);
}

double PortableExp(double x) {
  if (x > 709.8) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0;
  // x = k ln2 + r with |r| <= ln2 / 2; e^r by its Taylor series to r^17 / 17! (next term < 1e-20).
  const double k = std::floor(x * (1 / 0.69314718055994530942) + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1;
  for (int n = 17; n >= 1; --n) sum = 1 + sum * r / n;
  return std::ldexp(sum, static_cast<int>(k));  // exact scaling by 2^k
}

double PortablePow(double base, double exponent) {
  return PortableExp(exponent * PortableLog(base));
}

}  // namespace fedmf::data
