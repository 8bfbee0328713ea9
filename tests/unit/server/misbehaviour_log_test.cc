// ToleratedMisbehaviourLog on explicit times: one line per participant per period, each with the
// count of events since that participant's previous line, and no event left uncounted.
#include "server/misbehaviour_log.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const absl::Time kStart = absl::FromUnixSeconds(1000);
const absl::Duration kPeriod = absl::Seconds(10);

// The secagg_misbehaviour lines `action` logs.
template <typename Action>
std::vector<std::string> Lines(Action action) {
  ::testing::internal::CaptureStderr();
  action();
  std::vector<std::string> lines;
  for (absl::string_view line :
       absl::StrSplit(::testing::internal::GetCapturedStderr(), '\n', absl::SkipEmpty())) {
    if (absl::StrContains(line, "event=secagg_misbehaviour ")) lines.emplace_back(line);
  }
  return lines;
}

// The value of `key` in an event line.
std::string Field(const std::string& line, const std::string& key) {
  const size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) return "";
  const size_t from = at + key.size() + 2;
  return line.substr(from, line.find(' ', from) - from);
}

// Issue 48 item 4: a client marking every share unusable, 10 rounds a second for a minute, made
// one line per event; now each participant gets one line per period, and the counts add up.
TEST(ToleratedMisbehaviourLogTest, OneLinePerParticipantPerPeriodWithEveryEventCounted) {
  std::vector<std::string> lines = Lines([] {
    ToleratedMisbehaviourLog log(kPeriod);
    for (int i = 0; i < 600; ++i) {
      const absl::Time now = kStart + absl::Milliseconds(100) * i;
      for (uint32_t participant : {7u, 9u}) {
        log.Record({i, 0}, participant, "shares unusable at 1 holder(s): 3", now);
      }
      log.FlushDue(now);
    }
  });  // the destructor logs what is left
  // 60 s: a line at once and then one per 10 s, per participant (7 each), and the rest at the end.
  EXPECT_THAT(lines, SizeIs(2 * 7));
  int64_t events[10] = {};
  for (const std::string& line : lines) {
    EXPECT_EQ(Field(line, "tolerated"), "yes");
    EXPECT_EQ(Field(line, "period_s"), "10");
    events[std::stoi(Field(line, "participant"))] += std::stoll(Field(line, "events"));
  }
  EXPECT_EQ(events[7], 600);
  EXPECT_EQ(events[9], 600);
  EXPECT_EQ(Field(lines[0], "events"), "1");  // the first event is logged at once
  EXPECT_THAT(lines[0], HasSubstr("evidence=\"shares unusable at 1 holder(s): 3\""));
}

TEST(ToleratedMisbehaviourLogTest, CountsAreLoggedOnceThePeriodHasPassedEvenWithoutNewEvents) {
  ToleratedMisbehaviourLog log(kPeriod);
  EXPECT_THAT(Lines([&] { log.Record({0, 0}, 4, "a", kStart); }), SizeIs(1));
  EXPECT_THAT(Lines([&] {
                log.Record({1, 0}, 4, "b", kStart + absl::Seconds(1));
                log.Record({2, 0}, 4, "c", kStart + absl::Seconds(2));
                log.FlushDue(kStart + absl::Seconds(9));
              }),
              IsEmpty());
  std::vector<std::string> due = Lines([&] { log.FlushDue(kStart + absl::Seconds(10)); });
  ASSERT_THAT(due, SizeIs(1));
  EXPECT_EQ(Field(due[0], "events"), "2");
  EXPECT_EQ(Field(due[0], "round"), "2");  // the latest event's
  EXPECT_EQ(Field(due[0], "evidence"), "c");
  // Quiet for a period: forgotten, so its next event is logged at once again.
  EXPECT_THAT(Lines([&] { log.FlushDue(kStart + absl::Seconds(20)); }), IsEmpty());
  std::vector<std::string> again = Lines([&] {
    log.Record({3, 0}, 4, "d", kStart + absl::Seconds(21));
  });
  ASSERT_THAT(again, SizeIs(1));
  EXPECT_EQ(Field(again[0], "events"), "1");
  EXPECT_THAT(Lines([&] { log.FlushAll(); }), IsEmpty());  // nothing left to count
}

TEST(ToleratedMisbehaviourLogTest, FlushAllLogsWhatThePeriodHeldBack) {
  ToleratedMisbehaviourLog log(kPeriod);
  std::vector<std::string> lines = Lines([&] {
    for (int i = 0; i < 5; ++i) log.Record({i, 0}, 1, "x", kStart + absl::Seconds(i));
    log.FlushAll();
  });
  ASSERT_THAT(lines, SizeIs(2));
  EXPECT_EQ(Field(lines[0], "events"), "1");
  EXPECT_EQ(Field(lines[1], "events"), "4");
  EXPECT_THAT(Lines([&] { log.FlushAll(); }), IsEmpty());
}

}  // namespace
}  // namespace fedmf::server
