#include "common/dp/participant_budget.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/dp/ledger_text_format.h"
#include "common/dp/rdp_pure_dp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// One contribution of a local randomizer with a pure epsilon, per rating.
LedgerEntry Contribution(int64_t round, double epsilon) {
  LedgerEntry e;
  e.round = round;
  e.mechanism = "binary-rr";
  e.params = {{"epsilon", epsilon}};
  e.participants = 50;
  e.n_min = 1;
  e.unit = PrivacyUnit::kRating;
  e.pure_epsilon = epsilon;
  return e;
}

ParticipantBudget Participant(const PrivacyBudget& budget) {
  absl::StatusOr<ParticipantBudget> p = ParticipantBudget::Create(budget, {2, 8});
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// Budget 1 in contributions of 0.25 (exact in binary): the 4th lands exactly on the budget and
// is allowed, the 5th is refused and not recorded.
TEST(ParticipantBudgetTest, RefusesExactlyPastTheBudgetEdge) {
  ParticipantBudget p = Participant(PrivacyBudget::PureDp(1, PrivacyUnit::kRating));
  for (int round = 0; round < 4; ++round) {
    ASSERT_TRUE(p.CanContribute(Contribution(round, 0.25)).ok()) << round;
    ASSERT_TRUE(p.Charge(Contribution(round, 0.25)).ok()) << round;
  }
  EXPECT_EQ(p.ledger().spent().pure_epsilon(), 1.0);
  const absl::Status refused = p.CanContribute(Contribution(4, 0.25));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              AllOf(HasSubstr("round 4"), HasSubstr("'binary-rr'"),
                    HasSubstr("pure epsilon 1 per rating"), HasSubstr("of which 1 is spent")));
  EXPECT_EQ(p.Charge(Contribution(4, 0.25)).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.ledger().entries().size(), 4u);
  // A free contribution still fits.
  EXPECT_TRUE(p.Charge(Contribution(4, 0)).ok());
}

// Basic composition against hand-computed sums, with epsilons that are not exact in binary: the
// comparison is on the doubles, with no tolerance that would let the spending exceed the budget.
TEST(ParticipantBudgetTest, SpendingIsTheSumOfTheContributions) {
  ParticipantBudget p = Participant(PrivacyBudget::PureDp(2, PrivacyUnit::kRating));
  const std::vector<double> epsilons = {0.1, 0.2, 0.3, 0.7, 0.5};
  double sum = 0;
  for (size_t i = 0; i < epsilons.size(); ++i) {
    ASSERT_TRUE(p.Charge(Contribution(static_cast<int64_t>(i), epsilons[i])).ok()) << i;
    sum += epsilons[i];
    EXPECT_EQ(p.ledger().spent().pure_epsilon(), sum) << i;
  }
  EXPECT_NEAR(sum, 1.8, 1e-15);
  EXPECT_TRUE(p.CanContribute(Contribution(5, 2 - sum)).ok());
  EXPECT_FALSE(p.CanContribute(Contribution(5, 2 - sum + 1e-12)).ok());
}

// HDPMF: each user has its own epsilon, known only to the user. The coordinator's entry holds the
// release's largest epsilon; a user with privacy weight v is charged epsilon v.
TEST(ParticipantBudgetTest, AHeterogeneousEntryIsChargedAtTheParticipantsOwnWeight) {
  LedgerEntry worst_case = Contribution(0, 1.0);
  worst_case.mechanism = "hdpmf-stretching";
  worst_case.heterogeneous = true;
  absl::StatusOr<LedgerEntry> own = ParticipantCost(worst_case, 0.25);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(*own->pure_epsilon, 0.25);
  EXPECT_FALSE(own->heterogeneous);
  EXPECT_EQ(own->mechanism, "hdpmf-stretching");
  EXPECT_EQ(own->unit, PrivacyUnit::kRating);

  // This user's own budget of 0.5 affords two rounds at its weight, none at the worst case.
  ParticipantBudget p = Participant(PrivacyBudget::PureDp(0.5, PrivacyUnit::kRating));
  EXPECT_EQ(p.CanContribute(worst_case).code(), absl::StatusCode::kResourceExhausted);
  for (int64_t round = 0; round < 2; ++round) {
    worst_case.round = round;
    ASSERT_TRUE(p.Charge(*ParticipantCost(worst_case, 0.25)).ok()) << round;
  }
  worst_case.round = 2;
  EXPECT_EQ(p.Charge(*ParticipantCost(worst_case, 0.25)).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.ledger().spent().pure_epsilon(), 0.5);

  EXPECT_THAT(ParticipantCost(Contribution(0, 1), 0.5).status().message(),
              HasSubstr("not heterogeneous"));
  EXPECT_THAT(ParticipantCost(worst_case, 0).status().message(), HasSubstr("(0, 1]"));
  EXPECT_FALSE(ParticipantCost(worst_case, 1.5).ok());
  EXPECT_FALSE(ParticipantCost(worst_case, std::nan("")).ok());
  LedgerEntry rdp = worst_case;
  rdp.pure_epsilon.reset();
  rdp.rdp = {0.1, 0.2};
  EXPECT_THAT(ParticipantCost(rdp, 0.5).status().message(), HasSubstr("no pure epsilon"));
}

// RDP and (epsilon, delta) budgets work on a participant's ledger as on the coordinator's.
TEST(ParticipantBudgetTest, RdpAndApproxDpBudgets) {
  LedgerEntry gaussian = Contribution(0, 0);
  gaussian.mechanism = "gaussian";
  gaussian.unit = PrivacyUnit::kUser;
  gaussian.pure_epsilon.reset();
  gaussian.rdp = {0.125, 0.5};  // alpha / (2 z^2) with z = 2
  ParticipantBudget rdp = Participant(PrivacyBudget::Rdp(0.5, 2, PrivacyUnit::kUser));
  for (int round = 0; round < 4; ++round) {
    gaussian.round = round;
    ASSERT_TRUE(rdp.Charge(gaussian).ok()) << round;
  }
  EXPECT_EQ(rdp.CanContribute(gaussian).code(), absl::StatusCode::kResourceExhausted);
  // (epsilon, delta) at 1e-5 after one round, from order 8: 0.5 + log(7/8) - (log 1e-5 + log 8)/7.
  const double eps = 0.5 + std::log(7.0 / 8) - (std::log(1e-5) + std::log(8.0)) / 7;
  ParticipantBudget approx = Participant(PrivacyBudget::ApproxDp(eps, 1e-5, PrivacyUnit::kUser));
  EXPECT_TRUE(approx.Charge(gaussian).ok());
  EXPECT_EQ(approx.CanContribute(gaussian).code(), absl::StatusCode::kResourceExhausted);
  // Against an (epsilon, delta) budget a pure contribution spends the smaller of its pure epsilon
  // and the conversion of its RDP; on two orders the conversion is far above 0.3.
  ParticipantBudget fresh = Participant(PrivacyBudget::ApproxDp(0.3, 1e-5, PrivacyUnit::kRating));
  EXPECT_TRUE(fresh.Charge(Contribution(0, 0.3)).ok());
  EXPECT_FALSE(fresh.CanContribute(Contribution(1, 1e-3)).ok());
}

TEST(ParticipantBudgetTest, RefusesWhatItCannotMeasure) {
  ParticipantBudget per_user = Participant(PrivacyBudget::PureDp(10, PrivacyUnit::kUser));
  EXPECT_EQ(per_user.CanContribute(Contribution(0, 0.1)).code(),
            absl::StatusCode::kFailedPrecondition);
  LedgerEntry malformed = Contribution(0, 0.1);
  malformed.rdp = {0.1, 0.1};
  EXPECT_EQ(per_user.CanContribute(malformed).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(per_user.ledger().entries().empty());
  EXPECT_FALSE(ParticipantBudget::Create(PrivacyBudget::PureDp(-1)).ok());
  EXPECT_THAT(ParticipantBudget::Create(PrivacyBudget::Rdp(1, 3), {2, 8}).status().message(),
              HasSubstr("order 3"));
}

// The participant persists its ledger (text form) and resumes after a restart where it stopped.
TEST(ParticipantBudgetTest, SurvivesARestart) {
  ParticipantBudget p = Participant(PrivacyBudget::PureDp(1, PrivacyUnit::kRating));
  ASSERT_TRUE(p.Charge(Contribution(0, 0.5)).ok());
  ASSERT_TRUE(p.Charge(Contribution(1, 0.25)).ok());
  absl::StatusOr<ParticipantBudget> restored =
      ParseParticipantBudget(SerializeParticipantBudget(p));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->ledger().spent().pure_epsilon(), 0.75);
  EXPECT_TRUE(restored->CanContribute(Contribution(2, 0.25)).ok());
  EXPECT_EQ(restored->CanContribute(Contribution(2, 0.5)).code(),
            absl::StatusCode::kResourceExhausted);
  // Restoring under a smaller budget than already spent allows nothing more.
  absl::StatusOr<ParticipantBudget> lowered =
      ParticipantBudget::Restore(PrivacyBudget::PureDp(0.5, PrivacyUnit::kRating), p.ledger());
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->CanContribute(Contribution(2, 0)).code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace fedmf::dp
