// dp/noise_committee.h against a brute-force reference (sort all n ids by their SplitMix64 hash,
// computed from the published constants of hashing.h, and take the first c), and a frequency
// check that each id is a member with probability c / n over seeds.
#include "common/dp/noise_committee.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/dp/hashing.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

std::vector<uint32_t> BruteForce(uint64_t seed, uint32_t users, uint32_t parties) {
  std::vector<std::pair<uint64_t, uint32_t>> all;
  for (uint32_t id = 1; id <= users; ++id) {
    all.emplace_back(SplitMix64At(DeriveStreamKey(seed, kTagNoiseCommittee), id), id);
  }
  std::sort(all.begin(), all.end());
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < parties; ++i) out.push_back(all[i].second);
  std::sort(out.begin(), out.end());
  return out;
}

// Deterministic, of size c, increasing ids in [1, n], the brute-force set; Contains agrees.
TEST(NoiseCommitteeTest, IsTheCSmallestHashesOfTheSeed) {
  for (uint64_t seed : {1ULL, 7ULL, 0xdeadbeefULL}) {
    for (const auto& [users, parties] :
         {std::pair(1u, 1u), std::pair(24u, 3u), std::pair(943u, 16u), std::pair(50u, 50u)}) {
      const NoiseCommittee committee = NoiseCommittee::Select(seed, users, parties).value();
      EXPECT_EQ(committee.members(), BruteForce(seed, users, parties));
      EXPECT_EQ(committee.members(), NoiseCommittee::Select(seed, users, parties)->members());
      ASSERT_EQ(committee.members().size(), parties);
      EXPECT_TRUE(std::is_sorted(committee.members().begin(), committee.members().end()));
      EXPECT_GE(committee.members().front(), 1u);
      EXPECT_LE(committee.members().back(), users);
      size_t contained = 0;
      for (uint32_t id = 0; id <= users + 1; ++id) contained += committee.Contains(id) ? 1 : 0;
      EXPECT_EQ(contained, parties);
    }
  }
  EXPECT_NE(NoiseCommittee::Select(1, 943, 16)->members(),
            NoiseCommittee::Select(2, 943, 16)->members());
}

// Over 4,000 seeds, each of 20 ids is in a committee of 5 Binomial(4000, 1/4) times: mean 1000,
// sd 27.4; 5 sd either side (about 1e-5 false alarms over the 20 ids).
TEST(NoiseCommitteeTest, EveryUserIsEquallyLikely) {
  constexpr int kSeeds = 4000;
  std::vector<int> count(21, 0);
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const NoiseCommittee committee = NoiseCommittee::Select(seed, 20, 5).value();
    for (uint32_t id : committee.members()) ++count[id];
  }
  const double sd = std::sqrt(kSeeds * 0.25 * 0.75);
  for (uint32_t id = 1; id <= 20; ++id) EXPECT_NEAR(count[id], kSeeds / 4, 5 * sd) << id;
}

TEST(NoiseCommitteeTest, RefusesSizesOutsideTheUsers) {
  EXPECT_FALSE(NoiseCommittee::Select(1, 10, 0).ok());
  EXPECT_FALSE(NoiseCommittee::Select(1, 10, 11).ok());
  EXPECT_FALSE(NoiseCommittee::Select(1, 0, 0).ok());
  EXPECT_FALSE(NoiseCommittee::Select(1, int64_t{1} << 32, 1).ok());
}

}  // namespace
}  // namespace fedmf::dp
