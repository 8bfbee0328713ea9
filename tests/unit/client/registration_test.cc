#include "client/registration.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "crypto/ed25519.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wire/limits.h"

namespace fedmf::client {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<ParticipantHost> Host(const std::vector<uint32_t>& ids) {
  return ParticipantHost::CreateWithoutData(ids, 30, crypto::Ed25519PrivateKey::Generate().value())
      .value();
}

// A generator whose every word is `word`: all zeros makes absl::Uniform return the low end.
struct ConstantBits {
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return word; }
  result_type word = 0;
};

const absl::Time kStart = absl::FromUnixSeconds(1000);

TEST(RegistrationTest, RequestNamesTheHostsUsersAndKey) {
  const std::unique_ptr<ParticipantHost> host = Host({7, 3});
  const v1::RegisterRequest r = MakeRegisterRequest(*host, "proc-1", "secret");
  EXPECT_EQ(r.protocol_version(), wire::kProtocolVersion);
  EXPECT_EQ(r.client_name(), "proc-1");
  EXPECT_EQ(r.enrollment_token(), "secret");
  EXPECT_EQ(r.signing_public_key(), host->signing_public_key());
  EXPECT_EQ(r.signing_public_key().size(), 32u);
  EXPECT_THAT(r.participant_ids(), ElementsAre(3, 7));
  EXPECT_TRUE(r.accepts_check_in());  // the host takes CheckInLater
}

// Check-in: the host keeps the delay of a CheckInLater for its transport, once; a delay that is
// not positive or longer than a day is malformed.
TEST(RegistrationTest, TheHostTakesACheckInDelayOnce) {
  const std::unique_ptr<ParticipantHost> host = Host({1});
  EXPECT_EQ(host->TakeCheckIn(), std::nullopt);
  v1::ServerMessage later;
  later.mutable_check_in_later()->set_retry_after_ms(1500);
  absl::StatusOr<std::vector<v1::ClientMessage>> replies = host->Handle(later);
  ASSERT_TRUE(replies.ok()) << replies.status();
  EXPECT_TRUE(replies->empty());
  EXPECT_EQ(host->TakeCheckIn(), absl::Milliseconds(1500));
  EXPECT_EQ(host->TakeCheckIn(), std::nullopt);
  for (int64_t ms : {int64_t{0}, int64_t{-5}, int64_t{24} * 3600 * 1000 + 1}) {
    later.mutable_check_in_later()->set_retry_after_ms(ms);
    EXPECT_EQ(host->Handle(later).status().code(), absl::StatusCode::kInvalidArgument) << ms;
    EXPECT_EQ(host->TakeCheckIn(), std::nullopt) << ms;
  }
}

TEST(RegistrationTest, ResponseNeedsATokenUnlessTrainingIsDone) {
  v1::RegisterResponse r;
  r.set_current_round(4);
  EXPECT_EQ(ValidateRegisterResponse(r).code(), absl::StatusCode::kInvalidArgument);
  r.set_training_done(true);
  EXPECT_TRUE(ValidateRegisterResponse(r).ok());
  r.set_training_done(false);
  r.set_session_token("0123456789abcdef");
  EXPECT_TRUE(ValidateRegisterResponse(r).ok());
  r.set_current_round(-1);
  EXPECT_EQ(ValidateRegisterResponse(r).code(), absl::StatusCode::kInvalidArgument);
}

TEST(RegistrationTest, ATrainingDoneResponseEndsTheHost) {
  const std::unique_ptr<ParticipantHost> host = Host({1});
  v1::RegisterResponse r;
  r.set_current_round(9);
  r.set_training_done(true);
  EXPECT_FALSE(host->training_done());
  EndTrainingFromRegistration(*host, r);
  EXPECT_TRUE(host->training_done());
  EXPECT_EQ(host->rounds_completed(), 0);
}

TEST(BackoffTest, WaitsDoubleUpToTheMaximum) {
  ConstantBits low;  // jitter factor 0.8
  Backoff b({.initial = absl::Milliseconds(100), .max = absl::Milliseconds(500)}, low, kStart);
  std::vector<absl::Duration> waits;
  std::vector<bool> at_max;
  for (int i = 0; i < 5; ++i) {
    at_max.push_back(b.at_max());
    waits.push_back(b.NextWait());
  }
  EXPECT_THAT(waits, ElementsAre(absl::Milliseconds(100) * 0.8, absl::Milliseconds(200) * 0.8,
                                 absl::Milliseconds(400) * 0.8, absl::Milliseconds(500) * 0.8,
                                 absl::Milliseconds(500) * 0.8));
  EXPECT_THAT(at_max, ElementsAre(false, false, false, true, true));
}

TEST(BackoffTest, JitterSpansPlusMinusTwentyPercent) {
  std::mt19937_64 gen(7);
  const absl::Duration step = absl::Seconds(1);
  Backoff b({.initial = step, .max = step}, gen, kStart);
  absl::Duration lo = absl::InfiniteDuration(), hi = -absl::InfiniteDuration();
  for (int i = 0; i < 2000; ++i) {
    const absl::Duration w = b.NextWait();
    ASSERT_GE(w, step * 0.8);
    ASSERT_LT(w, step * 1.2);
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  // 2000 uniform draws miss the outer 1% of the range at either end with probability
  // 0.99^2000 < 2e-9.
  EXPECT_LT(lo, step * 0.804);
  EXPECT_GT(hi, step * 1.196);
}

TEST(BackoffTest, OnlyAStreamThatWorkedResetsTheWaits) {
  ConstantBits low;
  Backoff b({.initial = absl::Milliseconds(100), .max = absl::Seconds(10)}, low, kStart);
  b.NextWait();
  b.NextWait();
  const absl::Time end = kStart + absl::Seconds(30);
  b.StreamEnded(end - kStreamWorkedAfter, end);  // refused or cut at once
  EXPECT_EQ(b.NextWait(), absl::Milliseconds(400) * 0.8);
  b.StreamEnded(end - kStreamWorkedAfter - absl::Seconds(1), end);
  EXPECT_EQ(b.NextWait(), absl::Milliseconds(100) * 0.8);
}

TEST(BackoffTest, WorkedRestartsTheWaitsAndTheGiveUpCountFromItsTime) {
  ConstantBits low;
  Backoff b({.initial = absl::Milliseconds(100),
             .max = absl::Seconds(10),
             .give_up_after = absl::Seconds(60)},
            low, kStart);
  b.NextWait();
  b.NextWait();
  const absl::Time back = kStart + absl::Minutes(30);  // a check-in's return, after give-up time
  b.Worked(back);
  EXPECT_EQ(b.NextWait(), absl::Milliseconds(100) * 0.8);
  EXPECT_FALSE(b.ShouldGiveUp(back + absl::Seconds(60)));
  EXPECT_TRUE(b.ShouldGiveUp(back + absl::Seconds(61)));
}

TEST(BackoffTest, GivesUpAfterSoLongWithoutAWorkingStream) {
  ConstantBits low;
  const BackoffOptions options{.give_up_after = absl::Seconds(60)};
  Backoff b(options, low, kStart);
  EXPECT_FALSE(b.ShouldGiveUp(kStart + absl::Seconds(60)));
  EXPECT_TRUE(b.ShouldGiveUp(kStart + absl::Seconds(61)));
  // A stream that worked restarts the count from its end.
  b.StreamEnded(kStart + absl::Seconds(10), kStart + absl::Seconds(50));
  EXPECT_FALSE(b.ShouldGiveUp(kStart + absl::Seconds(61)));
  EXPECT_TRUE(b.ShouldGiveUp(kStart + absl::Seconds(111)));
  // By default it never does.
  Backoff forever(BackoffOptions(), low, kStart);
  EXPECT_FALSE(forever.ShouldGiveUp(kStart + absl::Hours(24 * 365)));
}

}  // namespace
}  // namespace fedmf::client
