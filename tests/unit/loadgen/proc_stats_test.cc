#include "tools/loadgen/proc_stats.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace fedmf::loadgen {
namespace {

TEST(ProcStatsTest, CpuTicksAreFields14And15) {
  // A command name with a space and a ')' inside; utime 250, stime 70.
  const char* stat =
      "1234 (fedmf co) ord) S 1 1234 1234 0 -1 4194560 5000 0 0 0 250 70 0 0 20 0 16 0 100 "
      "200000000 30000 18446744073709551615";
  EXPECT_EQ(ParseStatCpuTicks(stat).value(), 320);
}

TEST(ProcStatsTest, MalformedStatIsRefused) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStatCpuTicks("1234 no parens S 1").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStatCpuTicks("1 (x) S 1 2 3").status()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(ParseStatCpuTicks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 70 0").status()));
}

TEST(ProcStatsTest, PeakRssFromVmHwm) {
  const char* status = "Name:\tfedmf-coordinator\nVmPeak:\t  900000 kB\nVmHWM:\t  204800 kB\n";
  EXPECT_EQ(ParseStatusPeakRss(status).value(), 204800LL * 1024);
  EXPECT_TRUE(absl::IsNotFound(ParseStatusPeakRss("Name:\tx\n").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseStatusPeakRss("VmHWM:\t12 MB\n").status()));
}

TEST(ProcStatsTest, ReadsItsOwnProcess) {
  const ProcStats s = ReadProcStats(getpid()).value();
  EXPECT_GT(s.peak_rss_bytes, 1 << 20);  // a gtest binary holds more than 1 MiB
  EXPECT_GE(s.cpu_seconds, 0);
  EXPECT_TRUE(absl::IsNotFound(ReadProcStats(-5).status()));
}

}  // namespace
}  // namespace fedmf::loadgen
