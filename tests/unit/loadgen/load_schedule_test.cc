#include "tools/loadgen/load_schedule.h"

#include "gtest/gtest.h"

namespace fedmf::loadgen {
namespace {

TEST(ParseLatencyRangeTest, Forms) {
  LatencyRange r = ParseLatencyRange("5:20").value();
  EXPECT_EQ(r.min, absl::Milliseconds(5));
  EXPECT_EQ(r.max, absl::Milliseconds(20));
  r = ParseLatencyRange("7").value();
  EXPECT_EQ(r.min, absl::Milliseconds(7));
  EXPECT_EQ(r.max, absl::Milliseconds(7));
  r = ParseLatencyRange("").value();
  EXPECT_EQ(r.max, absl::ZeroDuration());
  r = ParseLatencyRange("0.5:1.5").value();
  EXPECT_EQ(r.min, absl::Microseconds(500));
}

TEST(ParseLatencyRangeTest, RejectsBadRanges) {
  for (const char* bad : {"20:5", "-1:3", "a:b", "1:2:3", ":", "5:"}) {
    const auto r = ParseLatencyRange(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << bad;
  }
  EXPECT_NE(ParseLatencyRange("20:5").status().message().find("'20:5'"), std::string::npos);
}

TEST(ValidateScheduleOptionsTest, NamesTheBadOption) {
  ScheduleOptions o;
  EXPECT_TRUE(ValidateScheduleOptions(o).ok());
  o.drop[static_cast<int>(DropStage::kMaskedInput)] = 1.5;
  absl::Status s = ValidateScheduleOptions(o);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("drop_masked"), std::string::npos) << s;
  o = ScheduleOptions();
  o.slow_fraction = -0.1;
  EXPECT_NE(ValidateScheduleOptions(o).message().find("slow_fraction"), std::string::npos);
  o = ScheduleOptions();
  o.reconnect_fraction = 2;
  EXPECT_NE(ValidateScheduleOptions(o).message().find("reconnect_fraction"), std::string::npos);
  o = ScheduleOptions();
  o.reconnect_after = -1;
  EXPECT_NE(ValidateScheduleOptions(o).message().find("reconnect_after"), std::string::npos);
  o = ScheduleOptions();
  o.drop_phase = -2;
  EXPECT_NE(ValidateScheduleOptions(o).message().find("drop_phase"), std::string::npos);
  o = ScheduleOptions();
  o.slow_latency = absl::Seconds(-1);
  EXPECT_FALSE(ValidateScheduleOptions(o).ok());
}

TEST(LoadScheduleTest, ZeroAndOneAreNeverAndAlways) {
  ScheduleOptions o;
  o.drop[static_cast<int>(DropStage::kShareKeys)] = 1;
  const LoadSchedule s(o);
  for (uint32_t p = 1; p <= 1000; ++p) {
    EXPECT_FALSE(s.Drops(p, 3, 0, 0, DropStage::kAdvertise));
    EXPECT_TRUE(s.Drops(p, 3, 0, 0, DropStage::kShareKeys));
    EXPECT_FALSE(s.Slow(p));
    EXPECT_FALSE(s.Reconnects(p));
    EXPECT_EQ(s.Latency(p, 0), absl::ZeroDuration());
  }
}

// drop_phase = 1: nobody drops in phase 0; in phase 1 exactly who drops without it.
TEST(LoadScheduleTest, DropPhaseLimitsDropsToThatPhase) {
  ScheduleOptions every;
  every.seed = 5;
  every.drop[static_cast<int>(DropStage::kMaskedInput)] = 0.3;
  ScheduleOptions one = every;
  one.drop_phase = 1;
  const LoadSchedule a(every), b(one);
  int dropped = 0;
  for (uint32_t p = 1; p <= 1000; ++p) {
    for (int64_t round = 0; round < 3; ++round) {
      EXPECT_FALSE(b.Drops(p, round, 0, 0, DropStage::kMaskedInput));
      const bool drops = a.Drops(p, round, 0, 0, DropStage::kMaskedInput);
      EXPECT_EQ(a.Drops(p, round, 0, 1, DropStage::kMaskedInput), drops);
      EXPECT_EQ(b.Drops(p, round, 0, 1, DropStage::kMaskedInput), drops);
      dropped += drops;
    }
  }
  // Binomial(3000, 0.3): mean 900, sd 25.1; 6 sd = 151.
  EXPECT_NEAR(dropped, 900, 151);
}

TEST(LoadScheduleTest, DropRateMatchesProbability) {
  ScheduleOptions o;
  o.seed = 7;
  o.drop[static_cast<int>(DropStage::kUnmasking)] = 0.1;
  const LoadSchedule s(o);
  int drops = 0;
  for (uint32_t p = 1; p <= 10000; ++p) {
    for (int64_t round = 0; round < 10; ++round)
      drops += s.Drops(p, round, 0, 0, DropStage::kUnmasking);
  }
  // Binomial(100000, 0.1): mean 10000, sd sqrt(100000 * 0.09) = 94.9; 6 sd = 569.
  EXPECT_NEAR(drops, 10000, 569);
}

TEST(LoadScheduleTest, DecisionsDependOnSeedNotOnCallOrder) {
  ScheduleOptions o;
  o.seed = 11;
  for (double& d : o.drop) d = 0.5;
  const LoadSchedule a(o), b(o);
  o.seed = 12;
  const LoadSchedule c(o);
  int differ = 0;
  for (uint32_t p = 200; p >= 1; --p) {  // b queried in the opposite order
    for (int st = 0; st < kNumDropStages; ++st) {
      const DropStage stage = static_cast<DropStage>(st);
      EXPECT_EQ(a.Drops(201 - p, 2, 0, 0, stage), a.Drops(201 - p, 2, 0, 0, stage));
      EXPECT_EQ(a.Drops(p, 2, 0, 0, stage), b.Drops(p, 2, 0, 0, stage));
      differ += a.Drops(p, 2, 0, 0, stage) != c.Drops(p, 2, 0, 0, stage);
    }
  }
  // 800 independent fair coins of two seeds: they differ about 400 times (sd 14.1); never 0.
  EXPECT_GT(differ, 300);
  EXPECT_LT(differ, 500);
}

TEST(LoadScheduleTest, StagesAndRoundsAreIndependent) {
  ScheduleOptions o;
  o.seed = 3;
  for (double& d : o.drop) d = 0.5;
  const LoadSchedule s(o);
  int both_stages = 0, both_rounds = 0;
  for (uint32_t p = 1; p <= 4000; ++p) {
    both_stages +=
        s.Drops(p, 0, 0, 0, DropStage::kAdvertise) && s.Drops(p, 0, 0, 0, DropStage::kShareKeys);
    both_rounds +=
        s.Drops(p, 0, 0, 0, DropStage::kAdvertise) && s.Drops(p, 1, 0, 0, DropStage::kAdvertise);
  }
  // Independent: Binomial(4000, 0.25), mean 1000, sd 27.4; 6 sd = 164 (the same draw: 2000).
  EXPECT_NEAR(both_stages, 1000, 164);
  EXPECT_NEAR(both_rounds, 1000, 164);
}

// A retried attempt at a round draws its drops afresh, independent of the first attempt's.
TEST(LoadScheduleTest, AttemptsAreIndependent) {
  ScheduleOptions o;
  o.seed = 4;
  o.drop[static_cast<int>(DropStage::kMaskedInput)] = 0.5;
  const LoadSchedule s(o);
  int both_attempts = 0;
  for (uint32_t p = 1; p <= 4000; ++p) {
    both_attempts += s.Drops(p, 2, 0, 0, DropStage::kMaskedInput) &&
                     s.Drops(p, 2, 1, 0, DropStage::kMaskedInput);
  }
  // As above: mean 1000, 6 sd = 164; the same draw in both attempts would give about 2000.
  EXPECT_NEAR(both_attempts, 1000, 164);
}

TEST(LoadScheduleTest, SlowAndReconnectFractionsAndLatencyBounds) {
  ScheduleOptions o;
  o.seed = 5;
  o.slow_fraction = 0.2;
  o.slow_latency = absl::Seconds(1);
  o.reconnect_fraction = 0.05;
  o.extra_latency = {absl::Milliseconds(10), absl::Milliseconds(30)};
  const LoadSchedule s(o);
  int slow = 0, reconnect = 0;
  for (uint32_t p = 1; p <= 10000; ++p) {
    slow += s.Slow(p);
    reconnect += s.Reconnects(p);
    const absl::Duration base = s.Slow(p) ? absl::Seconds(1) : absl::ZeroDuration();
    for (uint64_t i = 0; i < 3; ++i) {
      const absl::Duration d = s.Latency(p, i);
      EXPECT_GE(d, base + absl::Milliseconds(10));
      EXPECT_LT(d, base + absl::Milliseconds(30));
    }
  }
  // Binomial(10000, 0.2): sd 40, 6 sd = 240. Binomial(10000, 0.05): sd 21.8, 6 sd = 131.
  EXPECT_NEAR(slow, 2000, 240);
  EXPECT_NEAR(reconnect, 500, 131);
}

}  // namespace
}  // namespace fedmf::loadgen
