#include "common/algorithms/noise_outlook.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "common/dp/rdp_gaussian.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

// A release of the Gaussian mechanism with noise multiplier z, its RDP at order 2.
dp::LedgerEntry GaussianRelease(double z) {
  dp::LedgerEntry entry;
  entry.mechanism = "secagg-gaussian";
  entry.rdp = {*dp::GaussianRdp(z, 2.0)};
  return entry;
}

TEST(NoiseOutlookTest, ReadsTheNoiseMultiplierAndScalesBySqrtDimensionOverCohort) {
  // z = 3, D = 100, n = 60: the noise's norm 3 Delta 10 over the signal's 60 Delta / 2.
  absl::StatusOr<std::optional<NoiseOutlook>> outlook =
      ComputeNoiseOutlook(GaussianRelease(3), 100, 60, {});
  ASSERT_TRUE(outlook.ok()) << outlook.status();
  ASSERT_TRUE(outlook->has_value());
  EXPECT_NEAR((*outlook)->noise_multiplier, 3, 1e-12);
  EXPECT_NEAR((*outlook)->noise_to_signal, 1.0, 1e-12);
  EXPECT_EQ((*outlook)->dimension, 100);
  EXPECT_EQ((*outlook)->cohort, 60);
  EXPECT_FALSE((*outlook)->f1_over_dp_popularity.has_value());
}

TEST(NoiseOutlookTest, InterpolatesTheRatioInLogNoiseToSignal) {
  const std::vector<OutlookPoint> points = {{.noise_to_signal = 0.5, .f1_over_dp_popularity = 2},
                                            {.noise_to_signal = 2, .f1_over_dp_popularity = 1}};
  // noise_to_signal 1 (z 3, D 100, n 60) is the geometric middle of 0.5 and 2.
  absl::StatusOr<std::optional<NoiseOutlook>> middle =
      ComputeNoiseOutlook(GaussianRelease(3), 100, 60, points);
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_NEAR(*(*middle)->f1_over_dp_popularity, 1.5, 1e-12);
  EXPECT_FALSE((*middle)->extrapolated);
  // Twice the noise: noise_to_signal 2, the last point exactly.
  absl::StatusOr<std::optional<NoiseOutlook>> last =
      ComputeNoiseOutlook(GaussianRelease(6), 100, 60, points);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_NEAR(*(*last)->f1_over_dp_popularity, 1, 1e-12);
  EXPECT_FALSE((*last)->extrapolated);
}

TEST(NoiseOutlookTest, HoldsTheEndValuesOutsideTheMeasuredRangeAndSaysSo) {
  const std::vector<OutlookPoint> points = {{.noise_to_signal = 0.5, .f1_over_dp_popularity = 2},
                                            {.noise_to_signal = 2, .f1_over_dp_popularity = 0.8}};
  absl::StatusOr<std::optional<NoiseOutlook>> loud =
      ComputeNoiseOutlook(GaussianRelease(30), 100, 60, points);  // noise_to_signal 10
  ASSERT_TRUE(loud.ok()) << loud.status();
  EXPECT_DOUBLE_EQ(*(*loud)->f1_over_dp_popularity, 0.8);
  EXPECT_TRUE((*loud)->extrapolated);
  absl::StatusOr<std::optional<NoiseOutlook>> quiet =
      ComputeNoiseOutlook(GaussianRelease(0.3), 100, 60, points);  // noise_to_signal 0.1
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_DOUBLE_EQ(*(*quiet)->f1_over_dp_popularity, 2);
  EXPECT_TRUE((*quiet)->extrapolated);
}

TEST(NoiseOutlookTest, NoOutlookWithoutNoiseOrForAPureEpsilonRelease) {
  absl::StatusOr<std::optional<NoiseOutlook>> none = ComputeNoiseOutlook(std::nullopt, 100, 60, {});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  dp::LedgerEntry local;
  local.mechanism = "laplace";
  local.pure_epsilon = 1;
  absl::StatusOr<std::optional<NoiseOutlook>> pure = ComputeNoiseOutlook(local, 100, 60, {});
  ASSERT_TRUE(pure.ok()) << pure.status();
  EXPECT_FALSE(pure->has_value());
}

TEST(NoiseOutlookTest, RefusesBadSizesReleasesAndPoints) {
  EXPECT_EQ(ComputeNoiseOutlook(GaussianRelease(3), 0, 60, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeNoiseOutlook(GaussianRelease(3), 100, 0, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  dp::LedgerEntry two_orders = GaussianRelease(3);
  two_orders.rdp.push_back(two_orders.rdp[0]);
  EXPECT_EQ(ComputeNoiseOutlook(two_orders, 100, 60, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<OutlookPoint> decreasing = {{.noise_to_signal = 2, .f1_over_dp_popularity = 1},
                                                {.noise_to_signal = 1, .f1_over_dp_popularity = 2}};
  EXPECT_EQ(ValidateOutlookPoints(decreasing).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateOutlookPoints({{.noise_to_signal = 0, .f1_over_dp_popularity = 1}}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateOutlookPoints({{.noise_to_signal = 1, .f1_over_dp_popularity = -1}}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeNoiseOutlook(GaussianRelease(3), 100, 60, decreasing).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms
