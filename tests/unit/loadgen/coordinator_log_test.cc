#include "tools/loadgen/coordinator_log.h"

#include "gtest/gtest.h"

namespace fedmf::loadgen {
namespace {

TEST(CoordinatorLogTest, SumsRoundLinesOnly) {
  const char* log =
      "ts=1 event=listening port=5\n"
      "ts=2 event=round round=0 attempt=0 applied=yes participants=100 threshold=70 "
      "contributors=90 dropouts=10 bytes_in=1000 bytes_out=2000 round_s=1.5\n"
      "ts=3 event=round round=1 attempt=0 applied=no participants=100 threshold=70 "
      "contributors=60 dropouts=40 bytes_in=500 bytes_out=700 reason=\"too few\"\n"
      "ts=4 event=secagg_session round=1 participants=100\n"
      "ts=5 event=round round=1 attempt=1 applied=yes participants=100 threshold=70 "
      "contributors=95 dropouts=5 bytes_in=1100 bytes_out=2100\n";
  const RoundLogSummary s = SummarizeRoundLines(log).value();
  EXPECT_EQ(s.attempts, 3);
  EXPECT_EQ(s.applied, 2);
  EXPECT_EQ(s.aborted, 1);
  EXPECT_EQ(s.participants, 300);
  EXPECT_EQ(s.contributors, 245);
  EXPECT_EQ(s.dropouts, 55);
  EXPECT_EQ(s.bytes_in, 2600);
  EXPECT_EQ(s.bytes_out, 4800);
}

TEST(CoordinatorLogTest, EmptyLogIsZero) {
  const RoundLogSummary s = SummarizeRoundLines("").value();
  EXPECT_EQ(s.attempts, 0);
}

TEST(CoordinatorLogTest, MalformedRoundLineNamesLineAndKey) {
  absl::StatusOr<RoundLogSummary> s = SummarizeRoundLines(
      "ts=1 event=x\nts=2 event=round applied=yes participants=3 contributors=3 dropouts=x "
      "bytes_in=1 bytes_out=1\n");
  ASSERT_TRUE(absl::IsInvalidArgument(s.status()));
  EXPECT_NE(s.status().message().find("line 2"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find("dropouts"), std::string::npos) << s.status();
  s = SummarizeRoundLines("event=round participants=3\n");
  EXPECT_NE(s.status().message().find("applied"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace fedmf::loadgen
