// The contract probe (common/algorithms/probe/): its contributor and updater alone, without a
// runtime (the networked tests drive it through real processes: tests/integration/probe_test.sh).
#include "common/algorithms/probe/probe.h"

#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/local_data.h"
#include "common/algorithms/probe/contributor.h"
#include "common/algorithms/probe/updater.h"
#include "common/algorithms/registry.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::probe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::ProbeConfig Config(double report_epsilon = 1) {
  v1::ProbeConfig c;
  c.set_num_items(5);
  c.set_num_users(4);
  c.set_rounds(3);
  c.set_cohort_size(3);
  c.set_min_contributors(1);
  c.set_report_epsilon(report_epsilon);
  c.set_budget_epsilon(2);
  return c;
}

std::unique_ptr<ProbeContributor> ContributorFor(const ProbeUpdater& updater) {
  return ProbeContributor::Create(updater.Plan().value()).value();
}

// User 0 rated item 1; with a huge epsilon randomized response never lies.
const int32_t kItems0[] = {1};
const float kRating[] = {4};

TEST(ProbeTest, ConfigAndPlanValidation) {
  v1::ProbeConfig bad = Config();
  bad.set_min_contributors(4);  // above the cohort
  EXPECT_THAT(ProbeUpdater::Create(bad).status().message(), HasSubstr("min_contributors=4"));
  auto updater = ProbeUpdater::Create(Config()).value();
  v1::RoundPlan plan = updater->Plan().value();
  EXPECT_EQ(plan.combination(), v1::COMBINATION_CLEAR);
  EXPECT_EQ(plan.length(), 5u);
  plan.set_length(6);
  EXPECT_THAT(ProbeContributor::Create(plan).status().message(), HasSubstr("length=6"));
  plan = updater->Plan().value();
  plan.set_algorithm("dpmf-rp");
  EXPECT_FALSE(ProbeContributor::Create(plan).ok());
  plan = updater->Plan().value();
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  EXPECT_FALSE(ProbeContributor::Create(plan).ok());
  // The registry builds it from any plan naming it.
  EXPECT_TRUE(MakeContributor(updater->Plan().value()).ok());
}

// Phase 0: one sparse report per user, the state counts contributions; a corrupt state is refused.
TEST(ProbeTest, UserReportIsSparseAndAdvancesTheCounter) {
  auto updater = ProbeUpdater::Create(Config(/*report_epsilon=*/60)).value();
  auto contributor = ContributorFor(*updater);
  dp::Rng rng(1);
  const LocalData user = LocalData::User({kItems0, kRating, {}});
  const Contribution first = contributor->Contribute(user, "", rng).value();
  EXPECT_TRUE(first.vector.is_sparse());
  EXPECT_THAT(first.vector.indices(), ElementsAre(1));
  EXPECT_THAT(first.vector.values(), ElementsAre(1));
  EXPECT_EQ(first.state, EncodeCounter(1));
  EXPECT_EQ(contributor->Contribute(user, first.state, rng)->state, EncodeCounter(2));
  EXPECT_EQ(contributor->Contribute(user, "garbage", rng).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(contributor->scorer().predicts_ratings());
}

// A silo party reports once per local user, in global item ids.
TEST(ProbeTest, PartyReportsForEachOfItsUsers) {
  data::RatingsBuilder builder;
  builder.Add("u0", "a", 4, std::nullopt);
  builder.Add("u1", "b", 5, std::nullopt);
  builder.Add("u2", "b", 3, std::nullopt);
  auto shard = std::make_shared<PartyShard>();
  shard->train = std::make_shared<const data::RatingsDataset>(std::move(builder).Build().value());
  shard->global_users = {0, 2, 3};
  shard->global_items = {2, 4};  // local a, b are global 2, 4
  auto updater = ProbeUpdater::Create(Config(/*report_epsilon=*/60)).value();
  dp::Rng rng(1);
  const Contribution c =
      ContributorFor(*updater)->Contribute(LocalData::Party(shard), "", rng).value();
  EXPECT_THAT(c.vector.indices(), ElementsAre(2, 4));
  EXPECT_THAT(c.vector.values(), ElementsAre(1, 2));
  EXPECT_EQ(c.state, EncodeCounter(1));
}

// Two phases: phase 1 is for phase 0's contributors, who upload their counters; the reports are
// applied only then. The participant pays report_epsilon in phase 0 only.
TEST(ProbeTest, TwoPhasesApplyReportsAfterTheCounterCheck) {
  auto updater = ProbeUpdater::Create(Config(/*report_epsilon=*/60)).value();
  dp::Rng rng(1);
  LocalData user = LocalData::User({kItems0, kRating, {}});
  user.participant_id = 3;
  auto phase0 = ContributorFor(*updater);
  const dp::LedgerEntry cost = phase0->ParticipantCost(user, "").value().value();
  EXPECT_EQ(cost.pure_epsilon, 60);
  EXPECT_EQ(cost.unit, dp::PrivacyUnit::kUser);
  const std::string state = phase0->Contribute(user, "", rng)->state;

  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 1, 0}, std::vector<uint32_t>{1, 3}).ok());
  EXPECT_EQ(updater->round(), 0);
  EXPECT_THAT(updater->PhaseParticipants(), ElementsAre(1, 3));
  const v1::RoundPlan plan1 = updater->Plan().value();
  EXPECT_EQ(plan1.phase(), kCounterPhase);
  EXPECT_EQ(plan1.combination(), v1::COMBINATION_SECURE_SUM);
  EXPECT_EQ(plan1.max_contributors(), 2);
  EXPECT_EQ(plan1.length(), 4u);  // one coordinate per participant id
  EXPECT_FALSE(updater->RoundPrivacy(2, {}).value().has_value());
  auto phase1 = ContributorFor(*updater);
  EXPECT_FALSE(phase1->ParticipantCost(user, state).value().has_value());
  const Contribution counter = phase1->Contribute(user, state, rng).value();
  EXPECT_THAT(counter.vector.indices(), ElementsAre(2));  // participant 3
  EXPECT_THAT(counter.vector.values(), ElementsAre(1));
  EXPECT_EQ(counter.state, state);
  user.participant_id = 0;  // unknown: no coordinate
  EXPECT_FALSE(phase1->Contribute(user, state, rng).ok());

  EXPECT_EQ(updater->Popularity().sum(), 0);  // nothing applied yet
  ASSERT_TRUE(updater->ApplySum({1, 0, 1, 0}, std::vector<uint32_t>{1, 3}).ok());
  EXPECT_EQ(updater->round(), 1);
  EXPECT_EQ(updater->Plan()->phase(), kReportPhase);
  // Epsilon 60: the estimate is the true count up to e^-60.
  EXPECT_NEAR(updater->Popularity()[1], 1, 1e-9);
  EXPECT_NEAR(updater->Popularity()[3], 1, 1e-9);
  EXPECT_NEAR(updater->Popularity()[0], 0, 1e-9);
}

// Participant 1 contributed to rounds 0 and 1, so its counter must be >= 2 in round 1's phase 1;
// a counter of 1 (it lost its state and started over) fails the phase and changes nothing.
TEST(ProbeTest, CounterBelowWhatWasReceivedMeansLostState) {
  auto updater = ProbeUpdater::Create(Config()).value();
  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  ASSERT_TRUE(updater->ApplySum({1, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  const std::string before = updater->SerializeState().value();
  const absl::Status lost = updater->ApplySum({1, 0, 0, 0}, std::vector<uint32_t>{1});
  EXPECT_EQ(lost.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lost.message(), HasSubstr("participant 1's state counter is 1, below the 2"));
  EXPECT_EQ(updater->SerializeState().value(), before);
  // A round abandoned after its phase 0 still counts what was received: the retry expects 3.
  updater->AbandonRound();
  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  EXPECT_FALSE(updater->ApplySum({2, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  // A counter ahead (a report lost on the way) is fine.
  EXPECT_TRUE(updater->ApplySum({4, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  // A counter at a non-contributor's coordinate, or a contributor absent from phase 0: refused.
  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 0, 0}, std::vector<uint32_t>{1}).ok());
  EXPECT_EQ(updater->ApplySum({5, 9, 0, 0}, std::vector<uint32_t>{1}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(updater->ApplySum({5, 9, 0, 0}, std::vector<uint32_t>{1, 2}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ProbeTest, AbandonedRoundDropsItsReportsAndStateRoundTrips) {
  auto updater = ProbeUpdater::Create(Config()).value();
  ASSERT_TRUE(updater->ApplySum({0, 1, 0, 0, 0}, std::vector<uint32_t>{2}).ok());
  auto restored = ProbeUpdater::Restore(updater->SerializeState().value()).value();
  EXPECT_THAT(restored->PhaseParticipants(), ElementsAre(2));
  restored->AbandonRound();
  EXPECT_EQ(restored->Plan()->phase(), kReportPhase);
  EXPECT_TRUE(restored->PhaseParticipants().empty());
  EXPECT_EQ(restored->round(), 0);
  EXPECT_FALSE(ProbeUpdater::Restore("not a state").ok());
}

TEST(ProbeTest, PrivacyIsPureEpsilonPerUser) {
  v1::ProbeConfig c = Config(0.25);
  c.set_fixed_population(true);
  auto updater = ProbeUpdater::Create(c).value();
  const dp::LedgerEntry entry = updater->RoundPrivacy(3, {}).value().value();
  EXPECT_EQ(entry.pure_epsilon, 0.25);
  EXPECT_EQ(entry.participants, 3);
  EXPECT_EQ(entry.n_min, 1);
  EXPECT_EQ(entry.unit, dp::PrivacyUnit::kUser);
  EXPECT_EQ(updater->budget()->kind, dp::PrivacyBudget::Kind::kPureDp);
  EXPECT_EQ(updater->budget()->epsilon, 2);
  EXPECT_TRUE(updater->fixed_population());
  EXPECT_EQ(updater->Plan()->max_contributors(), c.num_users());
}

}  // namespace
}  // namespace fedmf::algorithms::probe
