#include "common/dp/ledger_text_format.h"

#include <limits>
#include <string>
#include <vector>

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
  e.rdp = {0.25, 1};
  EXPECT_TRUE(ledger->Append(e).ok());
  e.round = 3;
  e.mechanism = "secagg-gaussian";
  e.params = {};
  e.rdp = {0.5, 2};
  EXPECT_TRUE(ledger->Append(e).ok());
  return *ledger;
}

constexpr absl::string_view kSmallBody =
    "fedmf-privacy-ledger v1\n"
    "orders 2 8\n"
    "entry round=0 mechanism=pbm participants=94 n_min=90 "
    "params=theta:0.01;q:1;dimension:3584 rdp=0.25,1\n"
    "entry round=3 mechanism=secagg-gaussian participants=94 n_min=90 params= rdp=0.5,2\n";

// Published FNV-1a 64-bit test vectors.
TEST(LedgerTextFormatTest, Fnv1a64KnownAnswers) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(LedgerTextFormatTest, SerializesToTheDocumentedLines) {
  const std::string text = SerializeLedger(SmallLedger());
  EXPECT_EQ(text, absl::StrCat(kSmallBody, "end entries=2 fnv1a64=",
                               absl::StrFormat("%016x", Fnv1a64(kSmallBody)), "\n"));
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
    for (size_t i = 0; i < ledger->orders().size(); ++i) e.rdp.push_back(awkward[(i + round) % 6]);
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

// Rebuilds the file from a modified body with a correct trailer, so that the error is the
// one under test and not the checksum.
std::string WithTrailer(absl::string_view body, int entries) {
  return absl::StrCat(body, "end entries=", entries,
                      " fnv1a64=", absl::StrFormat("%016x", Fnv1a64(body)), "\n");
}

std::string Corrupt(absl::string_view from, absl::string_view to) {
  return WithTrailer(absl::StrReplaceAll(kSmallBody, {{from, to}}), 2);
}

std::string Error(absl::string_view text) {
  absl::StatusOr<PrivacyLedger> parsed = ParseLedger(text);
  EXPECT_FALSE(parsed.ok()) << text;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(LedgerTextFormatTest, CorruptionErrorsNameTheLineAndField) {
  EXPECT_THAT(Error(Corrupt("v1", "v2")), HasSubstr("line 1"));
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
  EXPECT_THAT(Error(WithTrailer(kSmallBody, 3)),
              AllOf(HasSubstr("line 5"), HasSubstr("trailer says 3 entries, file has 2")));
}

TEST(LedgerTextFormatTest, TruncationAndTamperingAreDetected) {
  const std::string good = SerializeLedger(SmallLedger());
  EXPECT_THAT(Error(""), HasSubstr("truncated"));
  EXPECT_THAT(Error(good.substr(0, good.size() - 1)), HasSubstr("truncated"));
  // Dropping the last entry but keeping a well-formed file still fails: the trailer is missing.
  EXPECT_THAT(Error(std::string(kSmallBody)), HasSubstr("truncated"));
  EXPECT_THAT(Error(absl::StrCat(kSmallBody, "\n")), HasSubstr("line 5"));
  // A changed digit that still parses is caught by the checksum.
  std::string tampered = absl::StrReplaceAll(good, {{"rdp=0.5,2", "rdp=0.4,2"}});
  EXPECT_THAT(Error(tampered), AllOf(HasSubstr("line 5"), HasSubstr("fnv1a64")));
  EXPECT_THAT(Error(absl::StrCat(good, "entry round=9\n")), HasSubstr("line 5"));
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

}  // namespace
}  // namespace fedmf::dp
