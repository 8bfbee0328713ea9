#include "client/participant.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/registry.h"
#include "common/algorithms/scorer.h"
#include "crypto/secagg/vector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/item_item_filter.h"
#include "tests/unit/client/fixed_contributor.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

using ::fedmf::test_util::FiveItemFilter;
using ::fedmf::test_util::ItemItemFilter;
using test_util::FixedContributor;
using ::testing::ElementsAre;

// A contribution with `contributor` in a SecAgg session with `config`, as the host starts one.
absl::StatusOr<v1::secagg::ClientToServer> StartRound(Participant& p,
                                                      const algorithms::Contributor& contributor,
                                                      const secagg::SessionConfig& config) {
  absl::StatusOr<algorithms::ContributionVector> input = p.Contribute(contributor, "test");
  if (!input.ok()) return input.status();
  return p.OpenSession(config, *input);
}

TEST(ParticipantTest, RejectsIdZero) {
  auto data = test_util::SmallData();
  EXPECT_EQ(Participant::Create(0, algorithms::LocalData::User(data->user(0))).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ParticipantTest, SecAggMessageOutsideARoundIsAPreconditionError) {
  auto data = test_util::SmallData();
  Participant p = Participant::Create(1, algorithms::LocalData::User(data->user(0))).value();
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
  Participant p = Participant::Create(3, algorithms::LocalData::User(data->user(2))).value();
  const absl::StatusOr<v1::secagg::ClientToServer> advertise = StartRound(p, *contributor, config);
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
  Participant p = Participant::Create(1, algorithms::LocalData::User(data->user(0))).value();
  EXPECT_EQ(StartRound(p, *contributor, config).status().code(),
            absl::StatusCode::kInvalidArgument);
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
  auto values = [&](Participant& p) {
    return p.Contribute(*contributor, plan.algorithm()).value().values();
  };
  auto vector = [&](uint32_t id, std::optional<uint64_t> seed) {
    Participant p = Participant::Create(id, algorithms::LocalData::User(row), seed).value();
    return values(p);
  };
  const std::vector<uint64_t> reference = vector(3, 42);
  EXPECT_EQ(vector(3, 42), reference);
  EXPECT_NE(vector(4, 42), reference);
  EXPECT_NE(vector(3, 43), reference);
  EXPECT_NE(vector(3, std::nullopt), reference);
  // The generator continues: a participant's second contribution is fresh noise.
  Participant p = Participant::Create(3, algorithms::LocalData::User(row), 42).value();
  EXPECT_EQ(values(p), reference);
  EXPECT_NE(values(p), reference);
}

// Under DPMF-RP the scores are the factor model's: V u with the user's ranking factor.
TEST(ParticipantTest, RecommendsOnlyUnratedItems) {
  auto data = test_util::SmallData();
  auto updater = test_util::SmallUpdater();
  auto contributor =
      algorithms::dpmf_rp::DpmfRpContributor::Create(updater->Plan().value()).value();
  Participant p = Participant::Create(1, algorithms::LocalData::User(data->user(0))).value();
  const auto top = p.Recommend(contributor->scorer(), 5).value();
  // Fewer than 5 when the user rated all but a few of the 30 items.
  const size_t unrated = 30 - static_cast<size_t>(p.ratings().size());
  ASSERT_EQ(top.size(), std::min<size_t>(5, unrated));
  ASSERT_GT(top.size(), 0u);
  const algorithms::FactorScorer& model = contributor->scorer();
  const Eigen::VectorXd scores = model.item_factors() * model.UserFactor(p.ratings()).value();
  for (const mf::Recommendation& r : top) {
    EXPECT_EQ(std::count(p.ratings().indices.begin(), p.ratings().indices.end(), r.item), 0)
        << "item " << r.item << " was rated";
    EXPECT_EQ(r.score, scores[r.item]);
  }
}

constexpr int32_t kTrainItems[] = {0, 1};
constexpr float kTrainRatings[] = {1, 2};

TEST(ParticipantTest, RecommendsWithAModelThatHasNoFactors) {
  const ItemItemFilter filter = FiveItemFilter();
  Participant p =
      Participant::Create(1, algorithms::LocalData::User({kTrainItems, kTrainRatings, {}})).value();
  const std::vector<mf::Recommendation> top = p.Recommend(filter, 3).value();
  // Items 2 and 3 tie at 3: lower index first. Rated items 0 and 1 are never recommended.
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].item, 4);
  EXPECT_EQ(top[0].score, 4);
  EXPECT_EQ(top[1].item, 2);
  EXPECT_EQ(top[2].item, 3);
  EXPECT_EQ(top[2].score, 3);
}

// Each contribution gets the participant's state of that algorithm and replaces it; another
// algorithm's state is kept apart; the states round-trip through the local-state export.
TEST(ParticipantTest, ContributionsCarryTheParticipantsStatePerAlgorithm) {
  const FixedContributor contributor(algorithms::ContributionVector::Sparse({1, 6}, {9, 4}));
  Participant p = Participant::Create(5, {}).value();
  ASSERT_TRUE(p.Contribute(contributor, "counter").ok());
  ASSERT_TRUE(p.Contribute(contributor, "counter").ok());
  ASSERT_TRUE(p.Contribute(contributor, "other").ok());
  EXPECT_EQ(p.user_factor().size(), 2);
  const v1::ParticipantLocalState saved = p.ExportLocalState();
  EXPECT_EQ(saved.participant_id(), 5u);
  EXPECT_EQ(saved.algorithm_states().at("counter"), "2");
  EXPECT_EQ(saved.algorithm_states().at("other"), "1");
  EXPECT_TRUE(saved.ledger().empty());

  Participant restarted = Participant::Create(5, {}).value();
  ASSERT_TRUE(restarted.RestoreLocalState(saved).ok());
  ASSERT_TRUE(restarted.Contribute(contributor, "counter").ok());
  EXPECT_EQ(restarted.ExportLocalState().algorithm_states().at("counter"), "3");
  // Another participant's state is refused.
  EXPECT_EQ(Participant::Create(6, {}).value().RestoreLocalState(saved).code(),
            absl::StatusCode::kInvalidArgument);
}

// With a budget of pure epsilon 1, contributions costing 0.4 each are made twice; the third is
// declined (ResourceExhausted) and changes nothing. A restart with the persisted ledger still
// refuses; a restart that lost its budget cannot take the ledger.
TEST(ParticipantTest, OwnBudgetRefusesOnceSpentAcrossARestart) {
  const FixedContributor contributor(algorithms::ContributionVector::Dense({1, 2}), 0.4);
  Participant p = Participant::Create(2, {}).value();
  ASSERT_TRUE(p.SetBudget(dp::PrivacyBudget::PureDp(1)).ok());
  ASSERT_TRUE(p.Contribute(contributor, "a").ok());
  ASSERT_TRUE(p.Contribute(contributor, "a").ok());
  const absl::StatusOr<algorithms::ContributionVector> third = p.Contribute(contributor, "a");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), ::testing::HasSubstr("participant 2"));
  const v1::ParticipantLocalState saved = p.ExportLocalState();
  EXPECT_EQ(saved.algorithm_states().at("a"), "2");
  EXPECT_FALSE(saved.ledger().empty());

  Participant restarted = Participant::Create(2, {}).value();
  EXPECT_EQ(restarted.RestoreLocalState(saved).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(restarted.SetBudget(dp::PrivacyBudget::PureDp(1)).ok());
  ASSERT_TRUE(restarted.RestoreLocalState(saved).ok());
  EXPECT_EQ(restarted.Contribute(contributor, "a").status().code(),
            absl::StatusCode::kResourceExhausted);
  // Without a cost nothing is charged.
  const FixedContributor free(algorithms::ContributionVector::Dense({1, 2}));
  EXPECT_TRUE(restarted.Contribute(free, "a").ok());
}

// The end of a service's run (EndRun): the next run starts with no algorithm state, while the
// budget's ledger carries over, so a device's own budget covers all the runs it joins.
TEST(ParticipantTest, TheEndOfARunDropsTheAlgorithmStatesAndKeepsTheLedger) {
  const FixedContributor contributor(algorithms::ContributionVector::Dense({1, 2}), 0.4);
  Participant p = Participant::Create(3, {}).value();
  ASSERT_TRUE(p.SetBudget(dp::PrivacyBudget::PureDp(1)).ok());
  ASSERT_TRUE(p.Contribute(contributor, "a").ok());
  ASSERT_TRUE(p.Contribute(contributor, "a").ok());
  p.EndRun();
  EXPECT_TRUE(p.ExportLocalState().algorithm_states().empty());
  EXPECT_FALSE(p.ExportLocalState().ledger().empty());
  EXPECT_EQ(p.Contribute(contributor, "a").status().code(),
            absl::StatusCode::kResourceExhausted);
  const FixedContributor free(algorithms::ContributionVector::Dense({1, 2}));
  ASSERT_TRUE(p.Contribute(free, "a").ok());
  EXPECT_EQ(p.ExportLocalState().algorithm_states().at("a"), "1");
}

// SecAgg sums dense vectors: the session's input is the densified contribution; a contribution
// with a coordinate outside the session's length opens no session.
TEST(ParticipantTest, StartRoundDensifiesASparseContribution) {
  const FixedContributor contributor(algorithms::ContributionVector::Sparse({1, 6}, {9, 4}));
  const secagg::SessionConfig config{
      .context = "t/round-0", .num_clients = 3, .threshold = 2, .bits = 5, .length = 8};
  Participant p = Participant::Create(1, {}).value();
  ASSERT_TRUE(StartRound(p, contributor, config).ok());
  const v1::secagg::ClientSessionState state = p.ExportSession().value().value();
  ASSERT_TRUE(state.has_input());
  EXPECT_THAT(secagg::UnpackVector(secagg::AsBytes(state.input()), 8, 5).value(),
              ElementsAre(0, 9, 0, 0, 0, 0, 4, 0));

  const FixedContributor outside(algorithms::ContributionVector::Sparse({8}, {1}));
  EXPECT_EQ(StartRound(p, outside, config).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.session(), nullptr);
}

}  // namespace
}  // namespace fedmf::client
