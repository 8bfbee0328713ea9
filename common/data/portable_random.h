// PortableRandom: seeded statistical randomness whose output is fixed by this code alone, so one
// seed gives the same numbers with any standard library on any machine with IEEE-754 doubles.
// Why not <random>'s distributions: std::uniform_int_distribution, std::normal_distribution etc.
// are implementation-defined (libstdc++, libc++ and MSVC differ); std::mt19937_64 itself is fully
// specified by the standard, so it is the engine, and every distribution here is our own code.
// Likewise PortableLog/Exp/Pow use only + - * / and exact scaling, because libm's log/exp/pow may
// differ in the last bit between C libraries. Not for anything security-relevant.
#ifndef FEDMF_COMMON_DATA_PORTABLE_RANDOM_H_
#define FEDMF_COMMON_DATA_PORTABLE_RANDOM_H_

#include <cstdint>
#include <random>
#include <utility>

#include "absl/types/span.h"

namespace fedmf::data {

class PortableRandom {
 public:
  explicit PortableRandom(uint64_t seed) : engine_(seed) {}

  // Next raw 64-bit output of std::mt19937_64.
  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1) on the grid k * 2^-53.
  double Uniform();
  // Uniform in [0, n) for n >= 1, unbiased (rejection of the incomplete top range).
  uint64_t UniformInt(uint64_t n);
  // Standard normal (Marsaglia's polar method; the second value of each pair is kept).
  double Normal();

  // Fisher-Yates shuffle driven by UniformInt.
  template <typename T>
  void Shuffle(absl::Span<T> values) {
    for (size_t i = values.size(); i > 1; --i) {
      using std::swap;
      swap(values[i - 1], values[UniformInt(i)]);
    }
  }

 private:
  std::mt19937_64 engine_;
  double spare_normal_ = 0;
  bool has_spare_normal_ = false;
};

// Natural logarithm of a finite x > 0 (relative error below 1e-15).
double PortableLog(double x);
// e^x for finite x; 0 below about -745, infinity above about 709.8.
double PortableExp(double x);
// base^exponent for finite base > 0 and finite exponent, as PortableExp(exponent *
// PortableLog(base)).
double PortablePow(double base, double exponent);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_PORTABLE_RANDOM_H_
