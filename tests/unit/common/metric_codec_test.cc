#include "common/metrics/metric_codec.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::metrics {
namespace {

constexpr uint64_t kMod = uint64_t{1} << 62;

std::vector<uint64_t> AddAll(const std::vector<std::vector<uint64_t>>& vectors) {
  std::vector<uint64_t> sum(MetricCodec::kLength, 0);
  for (const auto& v : vectors) {
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = (sum[i] + v[i]) % kMod;
  }
  return sum;
}

TEST(MetricCodecTest, FractionBitsFollowTheCohort) {
  // f = 61 - 24 - ceil(log2 n).
  EXPECT_EQ(MetricCodec::ForContributors(1)->fraction_bits(), 37);
  EXPECT_EQ(MetricCodec::ForContributors(2)->fraction_bits(), 36);
  EXPECT_EQ(MetricCodec::ForContributors(300)->fraction_bits(), 28);
  EXPECT_EQ(MetricCodec::ForContributors(512)->fraction_bits(), 28);
  EXPECT_EQ(MetricCodec::ForContributors(513)->fraction_bits(), 27);
  EXPECT_EQ(MetricCodec::ForContributors(int64_t{1} << 21)->fraction_bits(), 16);
  EXPECT_EQ(MetricCodec::ForContributors(300)->bits(), 62);
  EXPECT_EQ(MetricCodec::ForContributors(300)->length(), 13u);
  EXPECT_EQ(MetricCodec::ForContributors(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MetricCodec::ForContributors((int64_t{1} << 21) + 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MetricCodecTest, EncodesOneUserInFixedPointWithClamping) {
  // 2^21 contributors: f = 16, scale 65536. The user rmse 2^24 + 1 and the NaN recall are
  // clamped to 2^24 (encoded 2^24 * 2^16 = 2^40), so the user counts as clamped.
  const MetricCodec codec = MetricCodec::ForContributors(int64_t{1} << 21).value();
  MetricSums user;
  user.num_ratings = 3;
  user.squared_error = 0.5;
  user.absolute_error = 1.0 / 3.0;  // 21845.33 -> 21845
  user.user_rmse = 16777217;
  user.error_users = 1;
  user.precision = 0.25;
  user.recall = std::numeric_limits<double>::quiet_NaN();
  user.ndcg = 1;
  user.ranking_users = 1;
  const std::vector<uint64_t> expected = {
      196608, 32768, 21845, uint64_t{1} << 40, 65536, 16384, uint64_t{1} << 40, 0, 0, 65536,
      65536,  0,     65536};
  EXPECT_EQ(codec.Encode(user), expected);

  MetricSums unclamped;
  unclamped.precision = 0.25;
  EXPECT_EQ(codec.Encode(unclamped)[12], 0u);
  MetricSums negative;
  negative.ap = -1;  // impossible for an honest user: clamped to 0 and counted
  EXPECT_EQ(codec.Encode(negative)[7], 0u);
  EXPECT_EQ(codec.Encode(negative)[12], 65536u);
}

TEST(MetricCodecTest, SumDecodesWithinTheRoundingBound) {
  // Three users, f = 61 - 24 - 2 = 35: every decoded value is within 3 * 2^-36 of the exact sum,
  // counts are exact.
  const MetricCodec codec = MetricCodec::ForContributors(3).value();
  ASSERT_EQ(codec.fraction_bits(), 35);
  std::vector<std::vector<uint64_t>> vectors;
  const double values[3] = {1.0 / 3.0, 2.0 / 7.0, 0.1};
  for (int u = 0; u < 3; ++u) {
    MetricSums s;
    s.num_ratings = 5 + u;
    s.squared_error = 10 * values[u];
    s.absolute_error = values[u];
    s.error_users = 1;
    s.precision = values[u];
    s.ranking_users = u == 2 ? 0 : 1;
    s.skipped_users = u == 2 ? 1 : 0;
    vectors.push_back(codec.Encode(s));
  }
  const auto decoded = codec.Decode(AddAll(vectors), 3);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const double bound = 3 * std::ldexp(1.0, -36);
  const double exact = 1.0 / 3.0 + 2.0 / 7.0 + 0.1;
  EXPECT_NEAR(decoded->sums.squared_error, 10 * exact, bound);
  EXPECT_NEAR(decoded->sums.absolute_error, exact, bound);
  EXPECT_NEAR(decoded->sums.precision, exact, bound);
  EXPECT_EQ(decoded->sums.num_ratings, 18);
  EXPECT_EQ(decoded->sums.error_users, 3);
  EXPECT_EQ(decoded->sums.ranking_users, 2);
  EXPECT_EQ(decoded->sums.skipped_users, 1);
  EXPECT_EQ(decoded->clamped_users, 0);
}

// A model without rating predictions needs no slot of its own: its users' zero error slots and
// ranking counts decode to sums whose errors are absent.
TEST(MetricCodecTest, RankingOnlyUsersDecodeWithErrorsAbsent) {
  const MetricCodec codec = MetricCodec::ForContributors(2).value();
  MetricSums evaluated;
  evaluated.Add(UserRanking{.relevant = 2, .precision = 0.5, .recall = 0.5}, /*has_test=*/true);
  MetricSums skipped;
  skipped.Add(UserRanking{}, /*has_test=*/true);
  const auto decoded = codec.Decode(AddAll({codec.Encode(evaluated), codec.Encode(skipped)}), 2);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->sums.errors_absent());
  EXPECT_EQ(decoded->sums.ranking_users, 1);
  EXPECT_EQ(decoded->sums.skipped_users, 1);
  EXPECT_EQ(decoded->sums.precision, 0.5);
}

TEST(MetricCodecTest, LargestSumReachesTwoToThe61WithoutWrapping) {
  // 512 users (L = 9, f = 28), each with every value at the clamp 2^24: every coordinate of the
  // sum is 512 * 2^52 = 2^61 < 2^62, so the decoded sums are exactly 512 * 2^24.
  const MetricCodec codec = MetricCodec::ForContributors(512).value();
  MetricSums user;
  user.num_ratings = int64_t{1} << 24;
  user.squared_error = std::ldexp(1.0, 30);  // clamped
  user.absolute_error = std::ldexp(1.0, 24);
  user.user_rmse = std::ldexp(1.0, 24);
  user.error_users = int64_t{1} << 24;
  user.precision = user.recall = user.ap = user.ap_at_n = user.ndcg = std::ldexp(1.0, 24);
  user.ranking_users = user.skipped_users = int64_t{1} << 24;
  const std::vector<uint64_t> one = codec.Encode(user);
  const std::vector<uint64_t> sum = AddAll(std::vector<std::vector<uint64_t>>(512, one));
  for (size_t i = 0; i + 1 < sum.size(); ++i) EXPECT_EQ(sum[i], uint64_t{1} << 61) << i;
  const auto decoded = codec.Decode(sum, 512);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->sums.squared_error, 512 * std::ldexp(1.0, 24));
  EXPECT_EQ(decoded->sums.num_ratings, int64_t{512} << 24);
  EXPECT_EQ(decoded->clamped_users, 512);
}

TEST(MetricCodecTest, DecodeRejectsWhatNoHonestSumLooksLike) {
  const MetricCodec codec = MetricCodec::ForContributors(4).value();  // f = 35
  const std::vector<uint64_t> zero(13, 0);
  EXPECT_EQ(codec.Decode(std::vector<uint64_t>(12, 0), 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(codec.Decode(zero, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(codec.Decode(zero, 5).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(codec.Decode(zero, 4).ok());
  // Two users can sum to at most 2 * 2^(24 + 35) per coordinate.
  std::vector<uint64_t> big = zero;
  big[1] = (uint64_t{2} << 59) + 1;
  EXPECT_EQ(codec.Decode(big, 2).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(codec.Decode(big, 3).ok());
  // A count (num_ratings) must be a whole number at scale 2^35.
  std::vector<uint64_t> fractional = zero;
  fractional[0] = (uint64_t{1} << 35) + 1;
  EXPECT_EQ(codec.Decode(fractional, 1).status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace fedmf::metrics
