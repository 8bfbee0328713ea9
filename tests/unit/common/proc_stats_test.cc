#include "common/util/proc_stats.h"

#include <unistd.h>

#include <cstring>
#include <ctime>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::util {
namespace {

TEST(ProcStatsTest, StatFieldsAfterTheCommandName) {
  // A command name with a space and a ')' inside; utime 250, stime 70, starttime 100, vsize
  // 200000000, rss 30000 pages.
  const char* stat =
      "1234 (fedmf co) ord) S 1 1234 1234 0 -1 4194560 5000 0 0 0 250 70 0 0 20 0 16 0 100 "
      "200000000 30000 18446744073709551615";
  const StatFields f = ParseStat(stat).value();
  EXPECT_EQ(f.cpu_ticks, 320);
  EXPECT_EQ(f.start_ticks, 100);
  EXPECT_EQ(f.virtual_bytes, 200000000);
  EXPECT_EQ(f.rss_pages, 30000);
}

TEST(ProcStatsTest, MalformedStatIsRefused) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStat("1234 no parens S 1").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStat("1 (x) S 1 2 3").status()));
  const absl::Status s =
      ParseStat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 70 0 0 20 0 16 0 100 2000 30").status();
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("field 14"), absl::string_view::npos) << s;
}

TEST(ProcStatsTest, PeakRssFromVmHwm) {
  const char* status = "Name:\tfedmf-coordinator\nVmPeak:\t  900000 kB\nVmHWM:\t  204800 kB\n";
  EXPECT_EQ(ParseStatusPeakRss(status).value(), 204800LL * 1024);
  EXPECT_TRUE(absl::IsNotFound(ParseStatusPeakRss("Name:\tx\n").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStatusPeakRss("VmHWM:\t12 MB\n").status()));
}

TEST(ProcStatsTest, ReadsItsOwnProcess) {
  const ProcStats before = ReadProcStats(getpid()).value();
  EXPECT_GT(before.peak_rss_bytes, 1 << 20);  // a gtest binary holds more than 1 MiB
  EXPECT_GE(before.peak_rss_bytes, before.resident_bytes);
  EXPECT_GE(before.virtual_bytes, before.resident_bytes);
  EXPECT_GT(before.open_fds, 2);  // at least stdin, stdout, stderr
  const double now = static_cast<double>(std::time(nullptr));
  // Started before now (tick granularity), and not before the boot of any machine we run on.
  EXPECT_LE(before.start_time_seconds, now + 1);
  EXPECT_GT(before.start_time_seconds, now - 365 * 24 * 3600.0);
  EXPECT_TRUE(absl::IsNotFound(ReadProcStats(-5).status()));

  // 64 MiB written page by page is resident; CPU time does not go back.
  std::vector<char> block(64 << 20);
  std::memset(block.data(), 1, block.size());
  const ProcStats after = ReadProcStats(getpid()).value();
  EXPECT_GE(after.resident_bytes, before.resident_bytes + (48 << 20));
  EXPECT_GE(after.cpu_seconds, before.cpu_seconds);
  EXPECT_EQ(block[block.size() - 1], 1);
}

}  // namespace
}  // namespace fedmf::util
