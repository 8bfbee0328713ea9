#include "common/dp/privacy_ledger.h"

#include <cmath>
#include <limits>
#include <vector>

#include "common/dp/rdp_pure_dp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

LedgerEntry Entry(int64_t round, std::vector<double> rdp) {
  LedgerEntry e;
  e.round = round;
  e.mechanism = "pbm";
  e.params = {{"theta", 0.01}, {"q", 1}, {"dimension", 3584}};
  e.participants = 94;
  e.n_min = 90;
  e.unit = PrivacyUnit::kUser;
  e.rdp = std::move(rdp);
  return e;
}

// A pure epsilon-DP release, e.g. a local randomizer.
LedgerEntry PureEntry(int64_t round, double epsilon, PrivacyUnit unit = PrivacyUnit::kRating) {
  LedgerEntry e;
  e.round = round;
  e.mechanism = "binary-rr";
  e.participants = 94;
  e.n_min = 1;
  e.unit = unit;
  e.pure_epsilon = epsilon;
  return e;
}

TEST(PrivacyLedgerTest, SpentIsTheSumOfTheEntries) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(Entry(0, {0.25, 1})).ok());
  ASSERT_TRUE(ledger->Append(Entry(1, {0.25, 1})).ok());
  LedgerEntry laplace = Entry(1, {});  // two releases in the same round are fine
  laplace.mechanism = "laplace";
  laplace.params = {{"scale_over_sensitivity", 2}};
  ASSERT_TRUE(ledger->Record(laplace, *RdpCurve::Create({2, 8}, {0.5, 0.5})).ok());
  EXPECT_EQ(ledger->entries().size(), 3u);
  EXPECT_THAT(ledger->spent().rdp().values(), ElementsAre(1.0, 2.5));
  absl::StatusOr<PrivacyReport> report = ledger->Report(1e-5);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rdp_order2, 1.0);
  EXPECT_NEAR(report->improved.epsilon,
              2.5 + std::log(7.0 / 8) - (std::log(1e-5) + std::log(8.0)) / 7, 1e-12);
}

TEST(PrivacyLedgerTest, IsAppendOnlyInRoundOrder) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(Entry(5, {0.1})).ok());
  EXPECT_THAT(ledger->Append(Entry(4, {0.1})).message(), HasSubstr("append-only"));
  EXPECT_EQ(ledger->entries().size(), 1u);
  EXPECT_EQ(*ledger->spent().rdp().At(2), 0.1);
}

TEST(PrivacyLedgerTest, RejectsMalformedEntries) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  LedgerEntry e = Entry(0, {0.1, 0.2});
  e.n_min = 95;
  EXPECT_THAT(ledger->Append(e).message(), HasSubstr("n_min <= participants"));
  e = Entry(0, {0.1, 0.2});
  e.mechanism = "PBM v2";
  EXPECT_THAT(ledger->Append(e).message(), HasSubstr("mechanism name"));
  e = Entry(0, {0.1, 0.2});
  e.params.emplace_back("bad-name", 1);
  EXPECT_THAT(ledger->Append(e).message(), HasSubstr("parameter name"));
  e = Entry(0, {0.1, 0.2});
  e.params.emplace_back("nan", std::nan(""));
  EXPECT_THAT(ledger->Append(e).message(), HasSubstr("finite"));
  EXPECT_THAT(ledger->Append(Entry(-1, {0.1, 0.2})).message(), HasSubstr("round"));
  EXPECT_THAT(ledger->Append(Entry(0, {0.1})).message(), HasSubstr("1 values for 2"));
  EXPECT_THAT(ledger->Append(Entry(0, {0.1, -0.2})).message(), HasSubstr("#1"));
  EXPECT_THAT(ledger->Record(Entry(0, {}), *RdpCurve::Create({2, 9}, {0.1, 0.2})).message(),
              HasSubstr("grid"));
  EXPECT_TRUE(ledger->entries().empty());
  EXPECT_THAT(ledger->spent().rdp().values(), ElementsAre(0.0, 0.0));
}

TEST(PrivacyLedgerTest, AnInfiniteReleaseIsRecordedAndExhaustsEveryBudget) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(Entry(0, {std::numeric_limits<double>::infinity()})).ok());
  EXPECT_FALSE(*ledger->CanAfford(Entry(1, {0}), PrivacyBudget::Rdp(1e9)));
}

// Budget 1 at alpha = 2; rounds of 0.125 each (exact in binary).
TEST(PrivacyLedgerTest, CanWeAffordAnotherRound) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  const LedgerEntry next = Entry(0, {0.125, 0.5});
  const PrivacyBudget budget = PrivacyBudget::Rdp(1.0);
  for (int round = 0; round < 7; ++round) {
    ASSERT_TRUE(*ledger->CanAfford(next, budget)) << round;
    LedgerEntry e = next;
    e.round = round;
    ASSERT_TRUE(ledger->Append(e).ok());
  }
  EXPECT_TRUE(*ledger->CanAfford(next, budget));
  EXPECT_FALSE(*ledger->CanAfford(next, budget, 2));
  EXPECT_EQ(*ledger->AffordableRounds(next, budget, 100), 1);
  ASSERT_TRUE(ledger->Record(Entry(7, {}), *RdpCurve::Create({2, 8}, {0.125, 0.5})).ok());
  EXPECT_FALSE(*ledger->CanAfford(next, budget));
  EXPECT_EQ(*ledger->AffordableRounds(next, budget, 100), 0);
}

// (epsilon, delta) budgets of an RDP ledger are the improved conversion of its curve, as before.
TEST(PrivacyLedgerTest, ApproxDpBudgetOfAnRdpLedgerIsTheImprovedConversion) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(Entry(0, {0.25, 1})).ok());
  const LedgerEntry next = Entry(1, {0.25, 1});
  // After next: RDP 2 at order 8, so eps = 2 + log(7/8) - (log 1e-5 + log 8) / 7.
  const double eps = 2 + std::log(7.0 / 8) - (std::log(1e-5) + std::log(8.0)) / 7;
  EXPECT_TRUE(*ledger->CanAfford(next, PrivacyBudget::ApproxDp(eps + 1e-9, 1e-5)));
  EXPECT_FALSE(*ledger->CanAfford(next, PrivacyBudget::ApproxDp(eps - 1e-9, 1e-5)));
}

TEST(PrivacyLedgerTest, PureEntriesAddUpAndCountAsRandomizedResponse) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(PureEntry(0, 0.5)).ok());
  ASSERT_TRUE(ledger->Append(PureEntry(0, 0.25)).ok());
  ASSERT_TRUE(ledger->Append(PureEntry(1, 0.125)).ok());
  EXPECT_EQ(ledger->spent().pure_epsilon(), 0.875);
  EXPECT_EQ(ledger->spent().unit(), PrivacyUnit::kRating);
  EXPECT_NEAR(*ledger->spent().rdp().At(8),
              *PureDpRdp(0.5, 8) + *PureDpRdp(0.25, 8) + *PureDpRdp(0.125, 8), 1e-15);
  absl::StatusOr<PrivacyReport> report = ledger->Report(1e-5);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->pure_epsilon, 0.875);
  EXPECT_EQ(report->unit, PrivacyUnit::kRating);
  // Pure budget 1 per rating: 0.125 more fits exactly at the edge, 0.25 does not.
  const PrivacyBudget budget = PrivacyBudget::PureDp(1, PrivacyUnit::kRating);
  EXPECT_TRUE(*ledger->CanAfford(PureEntry(2, 0.125), budget));
  EXPECT_FALSE(*ledger->CanAfford(PureEntry(2, 0.25), budget));
  EXPECT_EQ(*ledger->AffordableRounds(PureEntry(2, 0.0625), budget, 100), 2);
  // A per-rating ledger cannot be measured against a per-user budget.
  EXPECT_EQ(ledger->CanAfford(PureEntry(2, 0.125), PrivacyBudget::PureDp(1)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // An RDP round makes every pure budget unreachable, but not the RDP ones.
  LedgerEntry rdp = Entry(2, {0.01, 0.04});
  rdp.unit = PrivacyUnit::kRating;
  ASSERT_TRUE(ledger->Append(rdp).ok());
  EXPECT_EQ(ledger->spent().pure_epsilon(), std::numeric_limits<double>::infinity());
  EXPECT_FALSE(*ledger->CanAfford(PureEntry(3, 0), budget));
  EXPECT_TRUE(*ledger->CanAfford(PureEntry(3, 0), PrivacyBudget::Rdp(10, 2, PrivacyUnit::kRating)));
}

// The coordinator records the largest cost any participant may incur and says it differs.
TEST(PrivacyLedgerTest, AHeterogeneousEntryRecordsTheWorstCase) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE(ledger->Append(PureEntry(0, 0.5)).ok());
  EXPECT_FALSE(ledger->Report(1e-5)->heterogeneous);
  LedgerEntry stretching = PureEntry(1, 1.0);
  stretching.mechanism = "hdpmf-stretching";
  stretching.heterogeneous = true;
  ASSERT_TRUE(ledger->Append(stretching).ok());
  EXPECT_TRUE(ledger->entries().back().heterogeneous);
  EXPECT_EQ(ledger->spent().pure_epsilon(), 1.5);  // charged at the worst case
  EXPECT_TRUE(ledger->spent().heterogeneous());
  EXPECT_TRUE(ledger->Report(1e-5)->heterogeneous);
}

TEST(PrivacyLedgerTest, RejectsMalformedGuarantees) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  LedgerEntry both = Entry(0, {0.1, 0.2});
  both.pure_epsilon = 0.5;
  EXPECT_THAT(ledger->Append(both).message(), HasSubstr("exactly one of"));
  EXPECT_THAT(ledger->Append(Entry(0, {})).message(), HasSubstr("exactly one of"));
  EXPECT_THAT(ledger->Append(PureEntry(0, -0.5)).message(), HasSubstr("pure epsilon"));
  EXPECT_THAT(ledger->Append(PureEntry(0, std::nan(""))).message(), HasSubstr("pure epsilon"));
  EXPECT_TRUE(ledger->entries().empty());
  EXPECT_EQ(ledger->spent().pure_epsilon(), 0.0);
  EXPECT_TRUE(ledger->Append(PureEntry(0, std::numeric_limits<double>::infinity())).ok());
}

// An entry that does not state its unit claims the weaker one.
TEST(PrivacyLedgerTest, TheDefaultUnitIsOneRating) {
  EXPECT_EQ(LedgerEntry().unit, PrivacyUnit::kRating);
}

}  // namespace
}  // namespace fedmf::dp
