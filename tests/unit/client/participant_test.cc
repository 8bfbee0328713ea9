#include "client/participant.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/algorithms/registry.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

TEST(ParticipantTest, RejectsIdZero) {
  auto data = test_util::SmallData();
  EXPECT_EQ(Participant::Create(0, data->user(0)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ParticipantTest, SecAggMessageOutsideARoundIsAPreconditionError) {
  auto data = test_util::SmallData();
  Participant p = Participant::Create(1, data->user(0)).value();
  EXPECT_EQ(p.Handle(v1::secagg::ServerToClient()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ParticipantTest, StartRoundAdvertisesKeysAndKeepsTheUserFactor) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  const v1::RoundPlan plan = updater->Plan().value();
  auto contributor = algorithms::MakeContributor(plan).value();
  secagg::SessionConfig config{.context = "t/round-0",
                               .num_clients = 10,
                               .threshold = 6,
                               .bits = plan.bits(),
                               .length = plan.length()};
  Participant p = Participant::Create(3, data->user(2)).value();
  const absl::StatusOr<v1::secagg::ClientToServer> advertise = p.StartRound(*contributor, config);
  ASSERT_TRUE(advertise.ok()) << advertise.status();
  EXPECT_TRUE(advertise->has_advertise_keys());
  EXPECT_EQ(advertise->advertise_keys().c_public_key().size(), 32u);
  EXPECT_EQ(p.user_factor().size(), 4);  // rank
  ASSERT_NE(p.session(), nullptr);
  p.EndRound();
  EXPECT_EQ(p.session(), nullptr);
}

TEST(ParticipantTest, StartRoundRejectsASessionOfTheWrongLength) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  const v1::RoundPlan plan = updater->Plan().value();
  auto contributor = algorithms::MakeContributor(plan).value();
  secagg::SessionConfig config{.context = "t",
                               .num_clients = 10,
                               .threshold = 6,
                               .bits = plan.bits(),
                               .length = plan.length() + 1};
  Participant p = Participant::Create(1, data->user(0)).value();
  EXPECT_EQ(p.StartRound(*contributor, config).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.session(), nullptr);
}

// With a seed the noise generator is dp::Rng(seed, id): the same (seed, id) gives the same PBM
// vector; another id, another seed or the OS-keyed generator give other noise. (Each of the d
// coordinates is a Binomial(q, ~1/2) draw, so two independent vectors agree everywhere with
// probability below (1/2)^d, d = plan.length() >= 30 here.)
TEST(ParticipantTest, SeededNoiseIsAFunctionOfSeedAndIdOnly) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater(true, algorithms::dpmf_rp::Mechanism::kPbm);
  const v1::RoundPlan plan = updater->Plan().value();
  ASSERT_GE(plan.length(), 30u);
  auto contributor = algorithms::MakeContributor(plan).value();
  const data::RatingRow row = data->user(2);
  auto vector = [&](uint32_t id, std::optional<uint64_t> seed) {
    Participant p = Participant::Create(id, row, {}, seed).value();
    return p.ContributeClear(*contributor).value();
  };
  const std::vector<uint64_t> reference = vector(3, 42);
  EXPECT_EQ(vector(3, 42), reference);
  EXPECT_NE(vector(4, 42), reference);
  EXPECT_NE(vector(3, 43), reference);
  EXPECT_NE(vector(3, std::nullopt), reference);
  // The generator continues: a participant's second contribution is fresh noise.
  Participant p = Participant::Create(3, row, {}, 42).value();
  EXPECT_EQ(p.ContributeClear(*contributor).value(), reference);
  EXPECT_NE(p.ContributeClear(*contributor).value(), reference);
}

TEST(ParticipantTest, RecommendsOnlyUnratedItems) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  auto contributor = algorithms::MakeContributor(updater->Plan().value()).value();
  Participant p = Participant::Create(1, data->user(0)).value();
  const auto top = p.Recommend(contributor->scorer(), 5).value();
  // Fewer than 5 when the user rated all but a few of the 30 items.
  const size_t unrated = 30 - static_cast<size_t>(p.ratings().size());
  ASSERT_EQ(top.size(), std::min<size_t>(5, unrated));
  ASSERT_GT(top.size(), 0u);
  for (const mf::Recommendation& r : top) {
    EXPECT_EQ(std::count(p.ratings().indices.begin(), p.ratings().indices.end(), r.item), 0)
        << "item " << r.item << " was rated";
  }
}

}  // namespace
}  // namespace fedmf::client
