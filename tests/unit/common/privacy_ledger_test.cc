#include "common/dp/privacy_ledger.h"

#include <cmath>
#include <limits>
#include <vector>

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
  e.rdp = std::move(rdp);
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
  EXPECT_FALSE(*ledger->CanAfford(*RdpCurve::Zero({2}), PrivacyBudget::Rdp(1e9)));
}

// Budget 1 at alpha = 2; rounds of 0.125 each (exact in binary).
TEST(PrivacyLedgerTest, CanWeAffordAnotherRound) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  ASSERT_TRUE(ledger.ok());
  const RdpCurve next = *RdpCurve::Create({2, 8}, {0.125, 0.5});
  const PrivacyBudget budget = PrivacyBudget::Rdp(1.0);
  for (int round = 0; round < 7; ++round) {
    ASSERT_TRUE(*ledger->CanAfford(next, budget)) << round;
    ASSERT_TRUE(ledger->Record(Entry(round, {}), next).ok());
  }
  EXPECT_TRUE(*ledger->CanAfford(next, budget));
  EXPECT_FALSE(*ledger->CanAfford(next, budget, 2));
  EXPECT_EQ(*ledger->AffordableRounds(next, budget, 100), 1);
  ASSERT_TRUE(ledger->Record(Entry(7, {}), next).ok());
  EXPECT_FALSE(*ledger->CanAfford(next, budget));
  EXPECT_EQ(*ledger->AffordableRounds(next, budget, 100), 0);
}

}  // namespace
}  // namespace fedmf::dp
