#include "server/stream_limits.h"

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

TEST(TokenBucketTest, BurstThenRate) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  TokenBucket b(/*rate=*/10, /*burst=*/3, t0);
  EXPECT_TRUE(b.Take(t0));
  EXPECT_TRUE(b.Take(t0));
  EXPECT_TRUE(b.Take(t0));
  EXPECT_FALSE(b.Take(t0));  // burst of 3 spent
  // 10 per second: 0.05 s gives half a token, 0.1 s one.
  EXPECT_FALSE(b.Take(t0 + absl::Milliseconds(50)));
  EXPECT_TRUE(b.Take(t0 + absl::Milliseconds(100)));
  EXPECT_FALSE(b.Take(t0 + absl::Milliseconds(100)));
  // A long pause refills to the burst, not beyond: 3 tokens after 10 s.
  const absl::Time t1 = t0 + absl::Seconds(10);
  EXPECT_TRUE(b.Take(t1));
  EXPECT_TRUE(b.Take(t1));
  EXPECT_TRUE(b.Take(t1));
  EXPECT_FALSE(b.Take(t1));
}

TEST(TokenBucketTest, ZeroRateIsUnlimited) {
  const absl::Time t0 = absl::FromUnixSeconds(1);
  TokenBucket b(0, 0, t0);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(b.Take(t0));
}

TEST(TokenBucketTest, ClockGoingBackDoesNotRefill) {
  const absl::Time t0 = absl::FromUnixSeconds(100);
  TokenBucket b(1, 1, t0);
  EXPECT_TRUE(b.Take(t0));
  EXPECT_FALSE(b.Take(t0 - absl::Seconds(50)));
  EXPECT_FALSE(b.Take(t0 + absl::Milliseconds(500)));
  EXPECT_TRUE(b.Take(t0 + absl::Seconds(1)));
}

TEST(QueueWouldOverflowTest, LoneMessageAlwaysGoesBacklogIsBounded) {
  EXPECT_FALSE(QueueWouldOverflow(0, 0, 5000, 100));  // alone: goes even above the limit
  EXPECT_FALSE(QueueWouldOverflow(1, 60, 40, 100));   // 100 <= 100
  EXPECT_TRUE(QueueWouldOverflow(1, 60, 41, 100));
  EXPECT_TRUE(QueueWouldOverflow(3, 5000, 1, 100));
}

TEST(StreamCounterTest, RefusesBeyondMaxAndReleases) {
  StreamCounter c(2);
  EXPECT_TRUE(c.TryAcquire());
  EXPECT_TRUE(c.TryAcquire());
  EXPECT_FALSE(c.TryAcquire());
  EXPECT_EQ(c.live(), 2);
  c.Release();
  EXPECT_TRUE(c.TryAcquire());
  EXPECT_FALSE(c.TryAcquire());
}

}  // namespace
}  // namespace fedmf::server
