#include "server/peer_rate_limiter.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

TEST(PeerAddressTest, DropsThePortOnly) {
  EXPECT_EQ(PeerAddress("ipv4:10.0.0.7:52908"), "ipv4:10.0.0.7");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:4000"), "ipv6:[::1]");
  EXPECT_EQ(PeerAddress("ipv4:10.0.0.7"), "ipv4:10.0.0.7");
  EXPECT_EQ(PeerAddress("unix:/tmp/fedmf.sock"), "unix:/tmp/fedmf.sock");
  EXPECT_EQ(PeerAddress(""), "");
}

// Issue 21 item 5: one address cannot register faster than the rate; others are not affected,
// whatever ports the calls come from.
TEST(PeerRateLimiterTest, EachAddressHasItsOwnBucket) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  PeerRateLimiter limiter(/*rate=*/1, /*burst=*/2);
  EXPECT_TRUE(limiter.Allow("ipv4:10.0.0.7:1", t0));
  EXPECT_TRUE(limiter.Allow("ipv4:10.0.0.7:2", t0));
  EXPECT_FALSE(limiter.Allow("ipv4:10.0.0.7:3", t0));
  EXPECT_TRUE(limiter.Allow("ipv4:10.0.0.8:1", t0));
  EXPECT_TRUE(limiter.Allow("ipv4:10.0.0.7:4", t0 + absl::Seconds(1)));
  EXPECT_EQ(limiter.tracked(), 2u);
}

TEST(PeerRateLimiterTest, ForgetsIdlePeersWhenFullAndRefusesNewOnesWhileAllAreActive) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  PeerRateLimiter limiter(/*rate=*/1, /*burst=*/2, /*max_peers=*/2);
  EXPECT_TRUE(limiter.Allow("ipv4:1.1.1.1:1", t0));
  EXPECT_TRUE(limiter.Allow("ipv4:2.2.2.2:1", t0));
  // Both buckets are still refilling: a third address waits.
  EXPECT_FALSE(limiter.Allow("ipv4:3.3.3.3:1", t0 + absl::Milliseconds(500)));
  EXPECT_EQ(limiter.tracked(), 2u);
  // After a second both are full again (idle): forgotten to make room.
  EXPECT_TRUE(limiter.Allow("ipv4:3.3.3.3:1", t0 + absl::Seconds(1)));
  EXPECT_EQ(limiter.tracked(), 1u);
}

TEST(PeerRateLimiterTest, ZeroRateIsUnlimited) {
  PeerRateLimiter limiter(0, 0, 1);
  const absl::Time t0 = absl::FromUnixSeconds(1);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(limiter.Allow(absl::StrCat("ipv4:1.1.1.", i), t0));
}

}  // namespace
}  // namespace fedmf::server
