// Placement alone, on registrations made here (no Registry): one live stream per user, the
// per-client stream cap, takeover by the same credential, signing keys, the live users and their
// count, and the streams check-in may end.
#include "server/placement.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/credentials.h"

namespace fedmf::server {
namespace {

// A registration of `ids` from TLS identity `identity` with credential `credential` (empty:
// none; the shared token).
Registration Claim(std::vector<uint32_t> ids, std::string identity = "",
                   std::string credential = "") {
  Registration r;
  r.name = "c";
  r.identity = std::move(identity);
  r.credential = std::move(credential);
  r.signing_key = std::string(32, 'k');
  r.participant_ids = std::move(ids);
  return r;
}

// A stream opened with the TLS identity `identity` (empty: none).
std::shared_ptr<Connection> Conn(uint64_t id, std::string identity = "") {
  return std::make_shared<Connection>(id, "test", nullptr, StreamLimits().max_queued_bytes,
                                      std::move(identity));
}

// The placement's live users are `ids`, and its count and membership test agree with the list.
void ExpectLive(const Placement& placement, const std::vector<uint32_t>& ids) {
  EXPECT_EQ(placement.LiveUsers(), ids);
  EXPECT_EQ(placement.LiveUserCount(), static_cast<int64_t>(ids.size()));
  for (uint32_t id : ids) EXPECT_TRUE(placement.IsLiveUser(id)) << id;
}

TEST(PlacementTest, BindsAStreamToItsUsers) {
  Placement placement(10);
  auto a = Conn(1);
  ASSERT_TRUE(placement.Bind(Claim({1, 3}), a).ok());
  EXPECT_TRUE(placement.IsBound(a.get()));
  ExpectLive(placement, {1, 3});
  EXPECT_TRUE(placement.Owns(a.get(), 3));
  EXPECT_FALSE(placement.Owns(a.get(), 2));
  EXPECT_EQ(placement.ConnectionOf(1), a);
  EXPECT_EQ(placement.ConnectionOf(2), nullptr);
  EXPECT_EQ(placement.NameOf(a.get()), "c");
}

TEST(PlacementTest, AUserHostedByALiveStreamCannotBeTakenOver) {
  Placement placement(10);
  auto a = Conn(1), b = Conn(2);
  ASSERT_TRUE(placement.Bind(Claim({1, 2}), a).ok());
  EXPECT_EQ(placement.Bind(Claim({2, 3}), b).status().code(), absl::StatusCode::kAlreadyExists);
  ExpectLive(placement, {1, 2});
  EXPECT_FALSE(placement.IsBound(b.get()));
  // Once the first stream is gone its users may reconnect.
  EXPECT_EQ(placement.Unbind(a.get()), (std::vector<uint32_t>{1, 2}));
  ExpectLive(placement, {});
  EXPECT_TRUE(placement.Bind(Claim({2, 3}), b).ok());
  ExpectLive(placement, {2, 3});
  EXPECT_TRUE(placement.Unbind(a.get()).empty());
}

// Check-in may end the streams of clients that accept it, hosting none of the users kept, bound
// by the time given or hosting a user whose round is over.
TEST(PlacementTest, CheckInCandidatesAcceptItHostNoKeptUserAndAreOldOrDone) {
  absl::Time now = absl::FromUnixSeconds(1000);  // the time streams are bound at
  Placement placement(10);
  placement.set_clock([&now] { return now; });
  auto bind = [&placement](std::vector<uint32_t> ids, bool accepts, uint64_t id) {
    Registration r = Claim(std::move(ids));
    r.accepts_check_in = accepts;
    std::shared_ptr<Connection> c = Conn(id);
    EXPECT_TRUE(placement.Bind(std::move(r), c).ok());
    return c;
  };
  const std::shared_ptr<Connection> old_client = bind({1}, false, 1), idle = bind({2}, true, 2),
                                    hosting_kept = bind({3, 4}, true, 3);
  now += absl::Seconds(10);
  const std::shared_ptr<Connection> recent = bind({5}, true, 4);
  using Streams = std::vector<std::shared_ptr<Connection>>;
  EXPECT_EQ(placement.CheckInCandidates(now - absl::Seconds(10), {4}), Streams{idle});
  EXPECT_EQ(placement.CheckInCandidates(now - absl::Seconds(11), {4}), Streams{});
  Streams all = placement.CheckInCandidates(now, {});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a->id() < b->id(); });
  EXPECT_EQ(all, (Streams{idle, hosting_kept, recent}));
  // The users of a round that is over go whatever their streams' age.
  EXPECT_EQ(placement.CheckInCandidates(absl::InfinitePast(), {}, {5}), Streams{recent});
  EXPECT_EQ(placement.CheckInCandidates(absl::InfinitePast(), {5}, {5}), Streams{});
}

// The directory the coordinator relays: each live user maps to its stream's registered key.
TEST(PlacementTest, SigningKeyOfIsTheLiveStreamsRegisteredKey) {
  Placement placement(10);
  Registration a = Claim({1, 2});
  a.signing_key = std::string(32, 'a');
  Registration b = Claim({5});
  b.signing_key = std::string(32, 'b');
  auto ca = Conn(1), cb = Conn(2);
  ASSERT_TRUE(placement.Bind(a, ca).ok());
  EXPECT_EQ(placement.SigningKeyOf(5), "");  // not yet on a stream
  ASSERT_TRUE(placement.Bind(b, cb).ok());
  EXPECT_EQ(placement.SigningKeyOf(1), std::string(32, 'a'));
  EXPECT_EQ(placement.SigningKeyOf(2), std::string(32, 'a'));
  EXPECT_EQ(placement.SigningKeyOf(5), std::string(32, 'b'));
  EXPECT_EQ(placement.SigningKeyOf(3), "");
  placement.Unbind(ca.get());
  EXPECT_EQ(placement.SigningKeyOf(1), "");
}

// With mutual TLS: one certificate identity holds one live stream by default, so a copied
// certificate cannot join a second time while the first holder is connected.
TEST(PlacementTest, OneIdentityHoldsOneLiveStream) {
  Placement placement(10);
  auto a = Conn(1, "alice"), b = Conn(2, "alice"), c = Conn(3, "bob");
  ASSERT_TRUE(placement.Bind(Claim({1}, "alice"), a).ok());
  // Other users, same identity: refused while alice's first stream lives.
  const absl::Status twice = placement.Bind(Claim({2}, "alice"), b).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(twice.message(), "identity 'alice' already has 1 live stream(s), the limit");
  ExpectLive(placement, {1});
  // Another identity, and registrations without identity, are not affected.
  EXPECT_TRUE(placement.Bind(Claim({3}, "bob"), c).ok());
  EXPECT_TRUE(placement.Bind(Claim({4}), Conn(4)).ok());
  EXPECT_TRUE(placement.Bind(Claim({5}), Conn(5)).ok());
  // Once alice's stream is gone she may join again (a reconnect).
  placement.Unbind(a.get());
  EXPECT_TRUE(placement.Bind(Claim({2}, "alice"), b).ok());
  ExpectLive(placement, {2, 3, 4, 5});
}

TEST(PlacementTest, StreamsPerClientLimitIsSettable) {
  Placement placement(10);
  placement.set_max_streams_per_client(2);
  auto a = Conn(1, "pool"), b = Conn(2, "pool");
  ASSERT_TRUE(placement.Bind(Claim({1}, "pool"), a).ok());
  ASSERT_TRUE(placement.Bind(Claim({2}, "pool"), b).ok());
  EXPECT_EQ(placement.Bind(Claim({3}, "pool"), Conn(3, "pool")).status().code(),
            absl::StatusCode::kAlreadyExists);
  placement.Unbind(b.get());
  EXPECT_TRUE(placement.Bind(Claim({3}, "pool"), Conn(4, "pool")).ok());
  // 0: no limit.
  Placement unlimited(10);
  unlimited.set_max_streams_per_client(0);
  for (uint32_t id = 1; id <= 10; ++id) {
    EXPECT_TRUE(unlimited.Bind(Claim({id}, "pool"), Conn(id, "pool")).ok());
  }
}

// Issue 48 item 4: a token credential holds one live stream by default, as a TLS identity does,
// so that two tokens cannot take most of the coordinator's --max_streams places with one-id
// streams. Its own reconnect still takes its ids over; another token is not affected.
TEST(PlacementTest, OneTokenCredentialHoldsOneLiveStream) {
  Placement placement(20);
  const std::string mallory = TokenCredential("mallory-token");
  auto first = Conn(1);
  ASSERT_TRUE(placement.Bind(Claim({1}, "", mallory), first).ok());
  const absl::Status second = placement.Bind(Claim({2}, "", mallory), Conn(2)).status();
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(second.message(),
            absl::StrCat("credential '", mallory, "' already has 1 live stream(s), the limit"));
  // The same token from a certificate counts against both: the token is still at its limit.
  EXPECT_EQ(placement.Bind(Claim({3}, "m", mallory), Conn(3, "m")).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(placement.Bind(Claim({11}, "", TokenCredential("alice-token")), Conn(4)).ok());
  // A reconnect with the first stream's ids replaces it rather than counting beside it.
  absl::StatusOr<Placement::Takeover> reconnect =
      placement.Bind(Claim({1, 2}, "", mallory), Conn(5));
  ASSERT_TRUE(reconnect.ok()) << reconnect.status();
  EXPECT_EQ(reconnect->streams, (std::vector<std::shared_ptr<Connection>>{first}));
  ExpectLive(placement, {1, 2, 11});
}

// The holder that reconnects while its old stream still looks alive takes its ids over; the old
// stream is handed back to be ended. Without a credential (the shared token) nobody takes over.
TEST(PlacementTest, TheSameCredentialTakesItsIdsOver) {
  Placement placement(20);
  const std::string alice = TokenCredential("alice-token");
  auto old_stream = Conn(1), new_stream = Conn(2);
  ASSERT_TRUE(placement.Bind(Claim({1, 2}, "", alice), old_stream).ok());
  EXPECT_EQ(placement.Bind(Claim({2}, "", TokenCredential("other")), Conn(3)).status().code(),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<Placement::Takeover> replaced =
      placement.Bind(Claim({1, 2, 3}, "", alice), new_stream);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->streams, (std::vector<std::shared_ptr<Connection>>{old_stream}));
  EXPECT_EQ(replaced->participant_ids, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(placement.IsBound(old_stream.get()));
  EXPECT_EQ(placement.ConnectionOf(1), new_stream);
  ExpectLive(placement, {1, 2, 3});
  EXPECT_TRUE(placement.Unbind(old_stream.get()).empty());  // its end changes nothing
}

// Live users are those in the run's range; streams outside it stay bound for a later run.
TEST(PlacementTest, LiveUsersFollowTheRunsRange) {
  Placement placement(Registry::kAnyUser);
  auto big = Conn(1), small = Conn(2);
  ASSERT_TRUE(placement.Bind(Claim({500}), big).ok());
  ASSERT_TRUE(placement.Bind(Claim({3}), small).ok());
  ExpectLive(placement, {3, 500});
  placement.set_num_users(20);
  ExpectLive(placement, {3});
  EXPECT_FALSE(placement.IsLiveUser(500));
  EXPECT_EQ(placement.ConnectionCount(), 2);
  placement.set_num_users(1000);
  ExpectLive(placement, {3, 500});
  placement.Unbind(small.get());
  ExpectLive(placement, {500});
}

}  // namespace
}  // namespace fedmf::server
