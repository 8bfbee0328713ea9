#include "common/dp/ledger_text_format.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

PrivacyLedger SmallLedger() {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({2, 8});
  EXPECT_TRUE(ledger.ok());
  LedgerEntry e;
  e.round = 0;
  e.mechanism = "pbm";
  e.params = {{"theta", 0.01}, {"q", 1}, {"dimension", 3584}};
  e.participants = 94;
  e.n_min = 90;
  e.unit = PrivacyUnit::kUser;
  e.rdp = {0.25, 1};
  EXPECT_TRUE(ledger->Append(e).ok());
  e.round = 3;
  e.mechanism = "secagg-gaussian";
  e.params = {};
  e.rdp = {0.5, 2};
  EXPECT_TRUE(ledger->Append(e).ok());
  e.round = 4;
  e.mechanism = "hdpmf-stretching";
  e.unit = PrivacyUnit::kRating;
  e.rdp.clear();
  e.pure_epsilon = 0.5;
  e.heterogeneous = true;
  EXPECT_TRUE(ledger->Append(e).ok());
  return *ledger;
}

constexpr absl::string_view kSmallBody =
    "fedmf-privacy-ledger v2\n"
    "orders 2 8\n"
    "entry round=0 mechanism=pbm unit=user participants=94 n_min=90 "
    "params=theta:0.01;q:1;dimension:3584 heterogeneous=no rdp=0.25,1\n"
    "entry round=3 mechanism=secagg-gaussian unit=user participants=94 n_min=90 params= "
    "heterogeneous=no rdp=0.5,2\n"
    "entry round=4 mechanism=hdpmf-stretching unit=rating participants=94 n_min=90 params= "
    "heterogeneous=yes epsilon=0.5\n";

// A checkpoint's ledger exactly as fedmf wrote it before version 2 (two DPMF-RP rounds of PBM on
// ML-100K, m/p = 3, epsilon 1 at alpha 2 over 100 rounds, on the orders 1.5, 2, 8 and 64).
constexpr absl::string_view kVersion1 =
    "fedmf-privacy-ledger v1\n"
    "orders 1.5 2 8 64\n"
    "entry round=0 mechanism=pbm participants=94 n_min=94 "
    "params=theta:0.0020202752202749252;q:1;dimension:14336;clip:0.02 "
    "rdp=0.0074999933290557288,0.0099999910899792061,0.03999996169388776,0.31999812317362031\n"
    "entry round=1 mechanism=pbm participants=94 n_min=94 "
    "params=theta:0.0020202752202749252;q:1;dimension:14336;clip:0.02 "
    "rdp=0.0074999933290557288,0.0099999910899792061,0.03999996169388776,0.31999812317362031\n"
    "end entries=2 fnv1a64=0d479b92dc34324d\n";

// Rebuilds the file from a modified body with a correct trailer, so that the error is the
// one under test and not the checksum.
std::string WithTrailer(absl::string_view body, int entries) {
  return absl::StrCat(body, "end entries=", entries,
                      " fnv1a64=", absl::StrFormat("%016x", Fnv1a64(body)), "\n");
}

std::string Corrupt(absl::string_view from, absl::string_view to) {
  return WithTrailer(absl::StrReplaceAll(kSmallBody, {{from, to}}), 3);
}

std::string Error(absl::string_view text) {
  absl::StatusOr<PrivacyLedger> parsed = ParseLedger(text);
  EXPECT_FALSE(parsed.ok()) << text;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

// Published FNV-1a 64-bit test vectors.
TEST(LedgerTextFormatTest, Fnv1a64KnownAnswers) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(LedgerTextFormatTest, SerializesToTheDocumentedLines) {
  const std::string text = SerializeLedger(SmallLedger());
  EXPECT_EQ(text, absl::StrCat(kSmallBody, "end entries=3 fnv1a64=",
                               absl::StrFormat("%016x", Fnv1a64(kSmallBody)), "\n"));
}

TEST(LedgerTextFormatTest, AVersion1LedgerLoadsAsPerUserRounds) {
  absl::StatusOr<PrivacyLedger> ledger = ParseLedger(kVersion1);
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  EXPECT_EQ(ledger->orders(), std::vector<double>({1.5, 2, 8, 64}));
  ASSERT_EQ(ledger->entries().size(), 2u);
  for (const LedgerEntry& e : ledger->entries()) {
    EXPECT_EQ(e.mechanism, "pbm");
    EXPECT_EQ(e.unit, PrivacyUnit::kUser);
    EXPECT_FALSE(e.heterogeneous);
    EXPECT_FALSE(e.pure_epsilon.has_value());
    EXPECT_EQ(e.rdp.size(), 4u);
    EXPECT_EQ(e.params.size(), 4u);
  }
  // The figures the version-1 code reported for this ledger, to the last bit.
  absl::StatusOr<PrivacyReport> report = ledger->Report(1e-5);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rdp_order2, 0.019999982179958412);
  EXPECT_EQ(report->improved.epsilon, 0.74097872083323735);
  EXPECT_EQ(report->improved.order, 64);
  EXPECT_EQ(report->classic.epsilon, 0.82274109499756176);
  EXPECT_EQ(report->unit, PrivacyUnit::kUser);
  EXPECT_FALSE(report->heterogeneous);
  // It is written back as version 2, which loads to the same ledger.
  const std::string v2 = SerializeLedger(*ledger);
  EXPECT_TRUE(absl::StartsWith(v2,
                               "fedmf-privacy-ledger v2\norders 1.5 2 8 64\n"
                               "entry round=0 mechanism=pbm unit=user "));
  absl::StatusOr<PrivacyLedger> again = ParseLedger(v2);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->entries()[1], ledger->entries()[1]);
  EXPECT_EQ(again->spent(), ledger->spent());
  // Version 1 knows none of the new fields, and version 2 needs them.
  const std::string v1_with_unit = absl::StrReplaceAll(
      kVersion1, {{"mechanism=pbm participants", "mechanism=pbm unit=user participants"}});
  EXPECT_THAT(Error(WithTrailer(v1_with_unit.substr(0, v1_with_unit.rfind("end ")), 2)),
              HasSubstr("unknown field 'unit'"));
  const std::string v2_without_unit = absl::StrReplaceAll(kVersion1, {{"ledger v1", "ledger v2"}});
  EXPECT_THAT(Error(WithTrailer(v2_without_unit.substr(0, v2_without_unit.rfind("end ")), 2)),
              HasSubstr("missing field 'unit'"));
}

TEST(LedgerTextFormatTest, RoundTripIsExact) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create();
  ASSERT_TRUE(ledger.ok());
  const std::vector<double> awkward = {
      1.0 / 3, 1e-300, 5e-324, 0.0, std::numeric_limits<double>::infinity(), 12345.678901234567};
  for (int round = 0; round < 4; ++round) {
    LedgerEntry e;
    e.round = round;
    e.mechanism = "pbm.v1_x";
    e.params = {{"theta", awkward[round]}, {"neg", -2.5e-7}};
    e.participants = 94 + round;
    e.n_min = 94;
    e.unit = round % 2 == 0 ? PrivacyUnit::kUser : PrivacyUnit::kRating;
    for (size_t i = 0; i < ledger->orders().size(); ++i) e.rdp.push_back(awkward[(i + round) % 6]);
    ASSERT_TRUE(ledger->Append(e).ok());
  }
  for (int round = 4; round < 10; ++round) {
    LedgerEntry e;
    e.round = round;
    e.mechanism = "laplace";
    e.participants = 94;
    e.n_min = 1;
    e.unit = round % 2 == 0 ? PrivacyUnit::kUser : PrivacyUnit::kRating;
    e.pure_epsilon = awkward[round - 4];
    e.heterogeneous = round % 3 == 0;
    ASSERT_TRUE(ledger->Append(e).ok());
  }
  absl::StatusOr<PrivacyLedger> parsed = ParseLedger(SerializeLedger(*ledger));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->orders(), ledger->orders());
  ASSERT_EQ(parsed->entries().size(), ledger->entries().size());
  for (size_t i = 0; i < parsed->entries().size(); ++i) {
    EXPECT_EQ(parsed->entries()[i], ledger->entries()[i]) << i;
  }
  EXPECT_EQ(parsed->spent(), ledger->spent());
  EXPECT_EQ(SerializeLedger(*parsed), SerializeLedger(*ledger));
}

TEST(LedgerTextFormatTest, EmptyLedgerRoundTrips) {
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create({1.5, 2});
  ASSERT_TRUE(ledger.ok());
  absl::StatusOr<PrivacyLedger> parsed = ParseLedger(SerializeLedger(*ledger));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->entries().empty());
  EXPECT_EQ(parsed->orders(), ledger->orders());
}

TEST(LedgerTextFormatTest, CorruptionErrorsNameTheLineAndField) {
  EXPECT_THAT(Error(Corrupt("v2", "v3")), HasSubstr("line 1"));
  EXPECT_THAT(Error(Corrupt("orders 2 8", "orders 2 x")),
              AllOf(HasSubstr("line 2"), HasSubstr("'orders'"), HasSubstr("'x'")));
  EXPECT_THAT(Error(Corrupt("orders 2 8", "orders 8 2")),
              AllOf(HasSubstr("line 2"), HasSubstr("increasing")));
  EXPECT_THAT(Error(Corrupt("orders 2 8", "order 2 8")), HasSubstr("line 2"));
  EXPECT_THAT(Error(Corrupt("rdp=0.25,1", "rdp=0.25,1e")),
              AllOf(HasSubstr("line 3"), HasSubstr("rdp[1]"), HasSubstr("'1e'")));
  EXPECT_THAT(Error(Corrupt("rdp=0.25,1", "rdp=0.25")),
              AllOf(HasSubstr("line 3"), HasSubstr("1 values for 2")));
  EXPECT_THAT(Error(Corrupt("rdp=0.25,1", "rdp=-0.25,1")),
              AllOf(HasSubstr("line 3"), HasSubstr("#0")));
  EXPECT_THAT(Error(Corrupt("rdp=0.5,2", "rdp=nan,2")), HasSubstr("line 4"));
  EXPECT_THAT(Error(Corrupt(" n_min=90 params=theta", " params=theta")),
              AllOf(HasSubstr("line 3"), HasSubstr("missing field 'n_min'")));
  EXPECT_THAT(Error(Corrupt("round=0", "round=0 round=0")),
              AllOf(HasSubstr("line 3"), HasSubstr("'round' appears twice")));
  EXPECT_THAT(Error(Corrupt("round=0", "round=0 color=red")), HasSubstr("unknown field 'color'"));
  EXPECT_THAT(Error(Corrupt("round=0", "round=zero")),
              AllOf(HasSubstr("line 3"), HasSubstr("'round'"), HasSubstr("not an integer")));
  EXPECT_THAT(Error(Corrupt("round=3", "round=-1")),
              AllOf(HasSubstr("line 4"), HasSubstr("round")));
  EXPECT_THAT(Error(Corrupt("round=0", "round=7")),
              AllOf(HasSubstr("line 4"), HasSubstr("append-only")));
  EXPECT_THAT(Error(Corrupt("participants=94 n_min=90 params=theta",
                            "participants=9 n_min=90 params=theta")),
              AllOf(HasSubstr("line 3"), HasSubstr("n_min <= participants")));
  EXPECT_THAT(Error(Corrupt("theta:0.01", "theta=0.01")), HasSubstr("line 3"));
  EXPECT_THAT(Error(Corrupt("theta:0.01", "theta:zero")),
              AllOf(HasSubstr("line 3"), HasSubstr("params.theta")));
  EXPECT_THAT(Error(Corrupt("mechanism=pbm", "mechanism=PBM")), HasSubstr("mechanism name"));
  EXPECT_THAT(Error(Corrupt("entry round=3", "entri round=3")), HasSubstr("line 4"));
  EXPECT_THAT(Error(WithTrailer(kSmallBody, 4)),
              AllOf(HasSubstr("line 6"), HasSubstr("trailer says 4 entries, file has 3")));
  // The fields of version 2.
  EXPECT_THAT(Error(Corrupt("pbm unit=user", "pbm unit=item")),
              AllOf(HasSubstr("line 3"), HasSubstr("field 'unit'"), HasSubstr("'item'")));
  EXPECT_THAT(Error(Corrupt("pbm unit=user", "pbm")),
              AllOf(HasSubstr("line 3"), HasSubstr("missing field 'unit'")));
  EXPECT_THAT(Error(Corrupt("heterogeneous=yes", "heterogeneous=1")),
              AllOf(HasSubstr("line 5"), HasSubstr("'heterogeneous'"), HasSubstr("'1'")));
  EXPECT_THAT(Error(Corrupt(" heterogeneous=yes", "")),
              AllOf(HasSubstr("line 5"), HasSubstr("missing field 'heterogeneous'")));
  EXPECT_THAT(Error(Corrupt("epsilon=0.5", "epsilon=0.5 rdp=1,2")),
              AllOf(HasSubstr("line 5"), HasSubstr("exactly one of the fields")));
  EXPECT_THAT(Error(Corrupt(" epsilon=0.5", "")),
              AllOf(HasSubstr("line 5"), HasSubstr("exactly one of the fields")));
  EXPECT_THAT(Error(Corrupt("epsilon=0.5", "epsilon=-0.5")),
              AllOf(HasSubstr("line 5"), HasSubstr("pure epsilon")));
  EXPECT_THAT(Error(Corrupt("epsilon=0.5", "epsilon=half")),
              AllOf(HasSubstr("line 5"), HasSubstr("field 'epsilon'"), HasSubstr("'half'")));
  EXPECT_THAT(Error(Corrupt("epsilon=0.5", "epsilon=0.5 epsilon=0.5")),
              HasSubstr("'epsilon' appears twice"));
}

TEST(LedgerTextFormatTest, TruncationAndTamperingAreDetected) {
  const std::string good = SerializeLedger(SmallLedger());
  EXPECT_THAT(Error(""), HasSubstr("truncated"));
  EXPECT_THAT(Error(good.substr(0, good.size() - 1)), HasSubstr("truncated"));
  // Dropping the last entry but keeping a well-formed file still fails: the trailer is missing.
  EXPECT_THAT(Error(std::string(kSmallBody)), HasSubstr("truncated"));
  EXPECT_THAT(Error(absl::StrCat(kSmallBody, "\n")), HasSubstr("line 6"));
  // A changed digit or word that still parses is caught by the checksum.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"rdp=0.5,2", "rdp=0.4,2"},
           {"epsilon=0.5", "epsilon=0.4"},
           {"unit=rating", "unit=user"},
           {"heterogeneous=yes", "heterogeneous=no"}}) {
    std::string tampered = absl::StrReplaceAll(good, {{from, to}});
    EXPECT_THAT(Error(tampered), AllOf(HasSubstr("line 6"), HasSubstr("fnv1a64"))) << to;
  }
  EXPECT_THAT(Error(absl::StrCat(good, "entry round=9\n")), HasSubstr("line 6"));
}

// Every strict prefix of a valid file is rejected, and every single-byte change is either
// rejected or (e.g. "entries=02") loads the same ledger. Nothing crashes.
TEST(LedgerTextFormatTest, EveryPrefixAndByteFlipIsHandled) {
  const PrivacyLedger original = SmallLedger();
  const std::string good = SerializeLedger(original);
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(ParseLedger(absl::string_view(good).substr(0, n)).ok()) << n;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    for (char c : {'0', '9', 'x', ' ', '\n', '\0', '-', '.', ','}) {
      if (good[i] == c) continue;
      std::string mutated = good;
      mutated[i] = c;
      absl::StatusOr<PrivacyLedger> parsed = ParseLedger(mutated);
      if (!parsed.ok()) continue;
      EXPECT_EQ(parsed->orders(), original.orders()) << i << " " << c;
      ASSERT_EQ(parsed->entries().size(), original.entries().size()) << i << " " << c;
      for (size_t e = 0; e < parsed->entries().size(); ++e) {
        EXPECT_EQ(parsed->entries()[e], original.entries()[e]) << i << " " << c;
      }
    }
  }
}

// A participant's budget and ledger: the budget line is covered by the checksum too.
ParticipantBudget SmallParticipant(const PrivacyBudget& budget) {
  absl::StatusOr<ParticipantBudget> p = ParticipantBudget::Create(budget, {2, 8});
  EXPECT_TRUE(p.ok()) << p.status();
  LedgerEntry e;
  e.round = 2;
  e.mechanism = "binary-rr";
  e.participants = 50;
  e.n_min = 1;
  e.unit = PrivacyUnit::kRating;
  e.pure_epsilon = 0.25;
  EXPECT_TRUE(p->Charge(e).ok());
  return *std::move(p);
}

TEST(LedgerTextFormatTest, ParticipantBudgetRoundTripsForEveryKind) {
  const std::vector<std::pair<PrivacyBudget, std::string>> cases = {
      {PrivacyBudget::PureDp(1, PrivacyUnit::kRating), "budget kind=pure unit=rating epsilon=1\n"},
      {PrivacyBudget::Rdp(2, 8, PrivacyUnit::kRating),
       "budget kind=rdp unit=rating epsilon=2 order=8\n"},
      {PrivacyBudget::ApproxDp(3, 1e-6, PrivacyUnit::kRating),
       "budget kind=approx_dp unit=rating epsilon=3 delta=9.9999999999999995e-07\n"}};
  for (const auto& [budget, line] : cases) {
    const ParticipantBudget participant = SmallParticipant(budget);
    const std::string text = SerializeParticipantBudget(participant);
    const std::string body = absl::StrCat(
        "fedmf-participant-budget v1\n", line,
        "orders 2 8\n"
        "entry round=2 mechanism=binary-rr unit=rating participants=50 n_min=1 params= "
        "heterogeneous=no epsilon=0.25\n");
    EXPECT_EQ(text, WithTrailer(body, 1));
    absl::StatusOr<ParticipantBudget> parsed = ParseParticipantBudget(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->budget().kind, budget.kind);
    EXPECT_EQ(parsed->budget().unit, budget.unit);
    EXPECT_EQ(parsed->budget().epsilon, budget.epsilon);
    EXPECT_EQ(parsed->budget().order, budget.order);
    EXPECT_EQ(parsed->budget().delta, budget.delta);
    EXPECT_EQ(parsed->ledger().spent(), participant.ledger().spent());
    EXPECT_EQ(SerializeParticipantBudget(*parsed), text);
  }
}

TEST(LedgerTextFormatTest, ParticipantBudgetErrorsNameTheLineAndField) {
  const std::string good =
      SerializeParticipantBudget(SmallParticipant(PrivacyBudget::PureDp(1, PrivacyUnit::kRating)));
  const std::string body = good.substr(0, good.rfind("end "));
  auto corrupt = [&](absl::string_view from, absl::string_view to) {
    return WithTrailer(absl::StrReplaceAll(body, {{from, to}}), 1);
  };
  auto error = [](absl::string_view text) {
    absl::StatusOr<ParticipantBudget> parsed = ParseParticipantBudget(text);
    EXPECT_FALSE(parsed.ok()) << text;
    return std::string(parsed.status().message());
  };
  EXPECT_THAT(error(corrupt("budget v1", "budget v2")), HasSubstr("line 1"));
  EXPECT_THAT(error(corrupt("kind=pure", "kind=renyi")),
              AllOf(HasSubstr("line 2"), HasSubstr("field 'kind'"), HasSubstr("'renyi'")));
  EXPECT_THAT(error(corrupt("epsilon=1\n", "epsilon=1 order=2\n")),
              AllOf(HasSubstr("line 2"), HasSubstr("neither 'order' nor 'delta'")));
  EXPECT_THAT(error(corrupt("kind=pure", "kind=rdp")),
              AllOf(HasSubstr("line 2"), HasSubstr("an 'order'")));
  EXPECT_THAT(error(corrupt("kind=pure unit=rating epsilon=1\n",
                            "kind=rdp unit=rating epsilon=1 order=3\n")),
              AllOf(HasSubstr("line 2"), HasSubstr("order 3"), HasSubstr("grid")));
  EXPECT_THAT(error(corrupt("epsilon=1\n", "epsilon=-1\n")),
              AllOf(HasSubstr("line 2"), HasSubstr("budget epsilon")));
  EXPECT_THAT(error(corrupt("unit=rating epsilon=1", "unit=users epsilon=1")),
              AllOf(HasSubstr("line 2"), HasSubstr("field 'unit'")));
  EXPECT_THAT(error(corrupt("budget kind", "budgets kind")), HasSubstr("line 2"));
  EXPECT_THAT(error(corrupt("epsilon=0.25", "epsilon=x")),
              AllOf(HasSubstr("line 4"), HasSubstr("field 'epsilon'")));
  // A ledger is not a participant's budget, nor the converse.
  EXPECT_THAT(error(SerializeLedger(SmallLedger())), HasSubstr("line 1"));
  EXPECT_THAT(Error(good), HasSubstr("line 1"));
  // A raised budget is caught by the checksum.
  EXPECT_THAT(error(absl::StrReplaceAll(good, {{"epsilon=1\n", "epsilon=9\n"}})),
              AllOf(HasSubstr("line 5"), HasSubstr("fnv1a64")));
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(ParseParticipantBudget(absl::string_view(good).substr(0, n)).ok()) << n;
  }
}

}  // namespace
}  // namespace fedmf::dp
