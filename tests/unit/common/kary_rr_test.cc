#include "common/dp/kary_rr.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::kSigmas;

TEST(KaryRrTest, RefusesBadParameters) {
  EXPECT_FALSE(KaryRr::Create(1, 1).ok());
  EXPECT_FALSE(KaryRr::Create(4, 0).ok());
  EXPECT_FALSE(KaryRr::Create(4, std::nan("")).ok());
  const KaryRr rr = KaryRr::Create(4, 1).value();
  Rng rng(1);
  EXPECT_FALSE(rr.Randomize(4, rng).ok());
  EXPECT_FALSE(rr.Randomize(-1, rng).ok());
}

// k = 4, e^eps = 3: p = 3/6, q = 1/6, the ratio e^eps.
TEST(KaryRrTest, ProbabilitiesByHand) {
  const KaryRr rr = KaryRr::Create(4, std::log(3.0)).value();
  EXPECT_NEAR(rr.keep_probability(), 0.5, 1e-15);
  // 6 reports of a value out of 12: (6 - 12/6) / (1/2 - 1/6) = 12 holders.
  EXPECT_NEAR(rr.Estimate(6, 12), 12, 1e-12);
  // A huge epsilon keeps every report and stays finite.
  EXPECT_EQ(KaryRr::Create(4, 1e6).value().keep_probability(), 1);
}

// Each report value's frequency matches p (own value) or q (each other value) within kSigmas
// binomial standard errors, and the estimate recovers how many clients hold each value.
TEST(KaryRrTest, ReportFrequenciesAndUnbiasedCounts) {
  constexpr int64_t kK = 5;
  constexpr int kClients = 100000;
  const KaryRr rr = KaryRr::Create(kK, 1.0).value();
  const double p = rr.keep_probability();
  const double q = (1 - p) / (kK - 1);
  Rng rng(7);
  std::vector<double> counts(kK, 0);
  std::vector<double> holders(kK, 0);
  for (int i = 0; i < kClients; ++i) {
    const int64_t value = i % 3;  // values 0..2 held, 3 and 4 held by nobody
    holders[static_cast<size_t>(value)] += 1;
    counts[static_cast<size_t>(rr.Randomize(value, rng).value())] += 1;
  }
  for (int64_t j = 0; j < kK; ++j) {
    const double h = holders[static_cast<size_t>(j)];
    const double expected = h * p + (kClients - h) * q;
    const double se = std::sqrt(h * p * (1 - p) + (kClients - h) * q * (1 - q));
    EXPECT_NEAR(counts[static_cast<size_t>(j)], expected, kSigmas * se) << j;
    EXPECT_NEAR(rr.Estimate(counts[static_cast<size_t>(j)], kClients), h, kSigmas * se / (p - q))
        << j;
  }
}

}  // namespace
}  // namespace fedmf::dp
