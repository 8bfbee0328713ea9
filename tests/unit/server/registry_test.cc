#include "server/registry.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

v1::RegisterRequest Request(std::vector<uint32_t> ids, std::string token = "secret") {
  v1::RegisterRequest r;
  r.set_protocol_version(wire::kProtocolVersion);
  r.set_client_name("c");
  r.set_enrollment_token(token);
  r.set_signing_public_key(std::string(32, 'k'));
  for (uint32_t id : ids) r.add_participant_ids(id);
  return r;
}

// A stream opened with the TLS identity `identity` (empty: none).
std::shared_ptr<Connection> Conn(uint64_t id, std::string identity = "") {
  return std::make_shared<Connection>(id, "test", nullptr, StreamLimits().max_queued_bytes,
                                      std::move(identity));
}

// The registry's live users are `ids`, and its count and membership test agree with the list.
void ExpectLive(const Registry& registry, const std::vector<uint32_t>& ids) {
  EXPECT_EQ(registry.LiveUsers(), ids);
  EXPECT_EQ(registry.LiveUserCount(), static_cast<int64_t>(ids.size()));
  for (uint32_t id : ids) EXPECT_TRUE(registry.IsLiveUser(id)) << id;
}

TEST(RegistryTest, RefusesAWrongTokenAndBadRequests) {
  Registry registry("secret", 10);
  EXPECT_EQ(registry.Register(Request({1}, "wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(registry.Register(Request({1}, "secre")).status().code(),
            absl::StatusCode::kUnauthenticated);
  v1::RegisterRequest version = Request({1});
  version.set_protocol_version(wire::kProtocolVersion + 1);
  EXPECT_EQ(registry.Register(version).status().code(), absl::StatusCode::kInvalidArgument);
  v1::RegisterRequest key = Request({1});
  key.set_signing_public_key("short");
  EXPECT_EQ(registry.Register(key).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Request({})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Request({0})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Request({11})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Request({4, 4})).status().code(), absl::StatusCode::kInvalidArgument);
  // More ids than users is refused before they are sorted.
  std::vector<uint32_t> many(11, 1);
  const absl::Status too_many = registry.Register(Request(many)).status();
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(too_many.message(), "participant_ids lists 11 ids, more than the 10 users");
}

TEST(RegistryTest, BindsAStreamToItsUsersOnce) {
  Registry registry("secret", 10);
  const std::string token = registry.Register(Request({3, 1})).value();
  EXPECT_EQ(token.size(), 16u);
  auto a = Conn(1);
  EXPECT_EQ(registry.Bind("nope", a).status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(registry.Bind(token, a).ok());
  EXPECT_TRUE(registry.IsBound(a.get()));
  ExpectLive(registry, {1, 3});
  EXPECT_TRUE(registry.Owns(a.get(), 3));
  EXPECT_FALSE(registry.Owns(a.get(), 2));
  EXPECT_EQ(registry.ConnectionOf(1), a);
  EXPECT_EQ(registry.ConnectionOf(2), nullptr);
  // The session token is single use, and a bound stream cannot bind again.
  EXPECT_EQ(registry.Bind(token, Conn(2)).status().code(), absl::StatusCode::kNotFound);
  const std::string other = registry.Register(Request({5})).value();
  EXPECT_EQ(registry.Bind(other, a).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RegistryTest, AUserHostedByALiveStreamCannotBeTakenOver) {
  Registry registry("secret", 10);
  auto a = Conn(1), b = Conn(2);
  ASSERT_TRUE(registry.Bind(registry.Register(Request({1, 2})).value(), a).ok());
  const std::string token = registry.Register(Request({2, 3})).value();
  EXPECT_EQ(registry.Bind(token, b).status().code(), absl::StatusCode::kAlreadyExists);
  ExpectLive(registry, {1, 2});
  // The refused registration is used up: a claimant cannot keep retrying it.
  EXPECT_EQ(registry.Bind(token, b).status().code(), absl::StatusCode::kNotFound);
  // Once the first stream is gone its users may reconnect.
  EXPECT_EQ(registry.Unbind(a.get()), (std::vector<uint32_t>{1, 2}));
  ExpectLive(registry, {});
  EXPECT_TRUE(registry.Bind(registry.Register(Request({2, 3})).value(), b).ok());
  ExpectLive(registry, {2, 3});
  EXPECT_TRUE(registry.Unbind(a.get()).empty());
}

// A clock the test moves.
struct FakeClock {
  absl::Time now = absl::FromUnixSeconds(1000);
  std::function<absl::Time()> Get() {
    return [this] { return now; };
  }
};

TEST(RegistryTest, BoundsWaitingRegistrations) {
  Registry registry("secret", 10, {.max_pending = 2});
  ASSERT_TRUE(registry.Register(Request({1})).ok());
  ASSERT_TRUE(registry.Register(Request({2})).ok());
  EXPECT_EQ(registry.Register(Request({3})).status().code(), absl::StatusCode::kResourceExhausted);
}

// Registrations that never bind lock nobody out for longer than the TTL: they expire, their
// tokens no longer bind, and new registrations are accepted again.
TEST(RegistryTest, WaitingRegistrationsExpire) {
  FakeClock clock;
  Registry registry("secret", 10, {.max_pending = 2, .ttl = absl::Seconds(60)});
  registry.set_clock(clock.Get());
  const std::string first = registry.Register(Request({1})).value();
  clock.now += absl::Seconds(30);
  const std::string second = registry.Register(Request({2})).value();
  const absl::Status full = registry.Register(Request({3})).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("retry after 1m"), std::string::npos) << full;
  clock.now += absl::Seconds(30);  // the first expires, exactly at its TTL
  const std::string third = registry.Register(Request({3})).value();
  EXPECT_EQ(registry.pending(), 2u);
  EXPECT_EQ(registry.Bind(first, Conn(1)).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(registry.Bind(second, Conn(2)).ok());  // 30 s old: still valid
  clock.now += absl::Seconds(60);
  EXPECT_EQ(registry.Bind(third, Conn(3)).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.pending(), 0u);
  ExpectLive(registry, {2});
}

// Check-in may end the streams of clients that accept it, hosting none of the users kept, bound
// by the time given or hosting a user whose round is over.
TEST(RegistryTest, CheckInCandidatesAcceptItHostNoKeptUserAndAreOldOrDone) {
  FakeClock clock;
  Registry registry("secret", 10);
  registry.set_clock(clock.Get());
  registry.set_max_streams_per_client(0);
  auto bind = [&registry](std::vector<uint32_t> ids, bool accepts, uint64_t id) {
    v1::RegisterRequest request = Request(std::move(ids));
    request.set_accepts_check_in(accepts);
    std::shared_ptr<Connection> c = Conn(id);
    EXPECT_TRUE(registry.Bind(registry.Register(request).value(), c).ok());
    return c;
  };
  const std::shared_ptr<Connection> old_client = bind({1}, false, 1), idle = bind({2}, true, 2),
                                    hosting_kept = bind({3, 4}, true, 3);
  clock.now += absl::Seconds(10);
  const std::shared_ptr<Connection> recent = bind({5}, true, 4);
  using Streams = std::vector<std::shared_ptr<Connection>>;
  EXPECT_EQ(registry.CheckInCandidates(clock.now - absl::Seconds(10), {4}), Streams{idle});
  EXPECT_EQ(registry.CheckInCandidates(clock.now - absl::Seconds(11), {4}), Streams{});
  Streams all = registry.CheckInCandidates(clock.now, {});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a->id() < b->id(); });
  EXPECT_EQ(all, (Streams{idle, hosting_kept, recent}));
  // The users of a round that is over go whatever their streams' age.
  EXPECT_EQ(registry.CheckInCandidates(absl::InfinitePast(), {}, {5}), Streams{recent});
  EXPECT_EQ(registry.CheckInCandidates(absl::InfinitePast(), {5}, {5}), Streams{});
}

// One TLS identity cannot fill the waiting room: it has its own cap; others are not affected.
TEST(RegistryTest, BoundsWaitingRegistrationsPerIdentity) {
  Registry registry("secret", 10, {.max_pending_per_client = 2});
  const std::string a = registry.Register(Request({1}), "mallory").value();
  ASSERT_TRUE(registry.Register(Request({2}), "mallory").ok());
  const absl::Status refused = registry.Register(Request({3}), "mallory").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "identity 'mallory' has 2 registrations waiting for their stream, the limit");
  EXPECT_TRUE(registry.Register(Request({3}), "alice").ok());
  EXPECT_TRUE(registry.Register(Request({4})).ok());
  // A registration that binds frees its identity's place.
  ASSERT_TRUE(registry.Bind(a, Conn(1, "mallory")).ok());
  EXPECT_TRUE(registry.Register(Request({5}), "mallory").ok());
}

// Issue 21 item 5: with a credentials file, each client token has its own cap on waiting
// registrations, so one holder cannot fill the waiting room for the others.
TEST(RegistryTest, BoundsWaitingRegistrationsPerCredential) {
  Registry registry("", 10, {.max_pending_per_client = 2});
  auto credentials = std::make_shared<const Credentials>(
      Credentials::Parse(absl::StrCat(TokenCredential("mallory-token"), " 1-5\n",
                                      TokenCredential("alice-token"), " 6-10\n"))
          .value());
  registry.set_credentials([credentials] { return credentials; });
  ASSERT_TRUE(registry.Register(Request({1}, "mallory-token")).ok());
  ASSERT_TRUE(registry.Register(Request({2}, "mallory-token")).ok());
  const absl::Status refused = registry.Register(Request({3}, "mallory-token")).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("has 2 registrations waiting"), absl::string_view::npos)
      << refused.message();
  EXPECT_TRUE(registry.Register(Request({6}, "alice-token")).ok());
}

// The directory the coordinator relays: each live user maps to its stream's registered key.
TEST(RegistryTest, SigningKeyOfIsTheLiveStreamsRegisteredKey) {
  Registry registry("secret", 10);
  v1::RegisterRequest a = Request({1, 2});
  a.set_signing_public_key(std::string(32, 'a'));
  v1::RegisterRequest b = Request({5});
  b.set_signing_public_key(std::string(32, 'b'));
  auto ca = Conn(1), cb = Conn(2);
  ASSERT_TRUE(registry.Bind(registry.Register(a).value(), ca).ok());
  const std::string token_b = registry.Register(b).value();
  EXPECT_EQ(registry.SigningKeyOf(5), "");  // registered, not yet on a stream
  ASSERT_TRUE(registry.Bind(token_b, cb).ok());
  EXPECT_EQ(registry.SigningKeyOf(1), std::string(32, 'a'));
  EXPECT_EQ(registry.SigningKeyOf(2), std::string(32, 'a'));
  EXPECT_EQ(registry.SigningKeyOf(5), std::string(32, 'b'));
  EXPECT_EQ(registry.SigningKeyOf(3), "");
  registry.Unbind(ca.get());
  EXPECT_EQ(registry.SigningKeyOf(1), "");
}

// With mutual TLS: one certificate identity holds one live stream by default, so a copied
// certificate cannot join a second time while the first holder is connected.
TEST(RegistryTest, OneIdentityHoldsOneLiveStream) {
  Registry registry("secret", 10);
  auto a = Conn(1, "alice"), b = Conn(2, "alice"), c = Conn(3, "bob");
  ASSERT_TRUE(registry.Bind(registry.Register(Request({1}), "alice").value(), a).ok());
  // Other users, same identity: refused while alice's first stream lives.
  const std::string again = registry.Register(Request({2}), "alice").value();
  const absl::Status twice = registry.Bind(again, b).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(twice.message(), "identity 'alice' already has 1 live stream(s), the limit");
  ExpectLive(registry, {1});
  // Another identity, and registrations without identity, are not affected.
  EXPECT_TRUE(registry.Bind(registry.Register(Request({3}), "bob").value(), c).ok());
  EXPECT_TRUE(registry.Bind(registry.Register(Request({4})).value(), Conn(4)).ok());
  EXPECT_TRUE(registry.Bind(registry.Register(Request({5})).value(), Conn(5)).ok());
  // Once alice's stream is gone she may join again (a reconnect), registering anew.
  registry.Unbind(a.get());
  EXPECT_EQ(registry.Bind(again, b).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(registry.Bind(registry.Register(Request({2}), "alice").value(), b).ok());
  ExpectLive(registry, {2, 3, 4, 5});
}

TEST(RegistryTest, StreamsPerClientLimitIsSettable) {
  Registry registry("secret", 10);
  registry.set_max_streams_per_client(2);
  auto a = Conn(1, "pool"), b = Conn(2, "pool");
  ASSERT_TRUE(registry.Bind(registry.Register(Request({1}), "pool").value(), a).ok());
  ASSERT_TRUE(registry.Bind(registry.Register(Request({2}), "pool").value(), b).ok());
  EXPECT_EQ(registry.Bind(registry.Register(Request({3}), "pool").value(), Conn(3, "pool"))
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
  registry.Unbind(b.get());
  EXPECT_TRUE(registry.Bind(registry.Register(Request({3}), "pool").value(), Conn(4, "pool")).ok());
  // 0: no limit.
  Registry unlimited("secret", 10);
  unlimited.set_max_streams_per_client(0);
  for (uint32_t id = 1; id <= 10; ++id) {
    EXPECT_TRUE(
        unlimited.Bind(unlimited.Register(Request({id}), "pool").value(), Conn(id, "pool")).ok());
  }
}

// Issue 48 item 4: a token credential holds one live stream by default, as a TLS identity does,
// so that two tokens cannot take most of the coordinator's --max_streams places with one-id
// streams. Its own reconnect still takes its ids over; another token is not affected.
TEST(RegistryTest, OneTokenCredentialHoldsOneLiveStream) {
  Registry registry("", 20);
  auto credentials = std::make_shared<const Credentials>(
      Credentials::Parse(absl::StrCat(TokenCredential("mallory-token"), " 1-10\n",
                                      TokenCredential("alice-token"), " 11-20\n"))
          .value());
  registry.set_credentials([credentials] { return credentials; });
  auto first = Conn(1);
  ASSERT_TRUE(registry.Bind(registry.Register(Request({1}, "mallory-token")).value(), first).ok());
  const absl::Status second =
      registry.Bind(registry.Register(Request({2}, "mallory-token")).value(), Conn(2)).status();
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(second.message(), absl::StrCat("credential '", TokenCredential("mallory-token"),
                                           "' already has 1 live stream(s), the limit"));
  // The same token from a certificate counts against both: the token is still at its limit.
  EXPECT_EQ(
      registry.Bind(registry.Register(Request({3}, "mallory-token"), "m").value(), Conn(3, "m"))
          .status()
          .code(),
      absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(registry.Bind(registry.Register(Request({11}, "alice-token")).value(), Conn(4)).ok());
  // A reconnect with the first stream's ids replaces it rather than counting beside it.
  absl::StatusOr<Registry::Takeover> reconnect =
      registry.Bind(registry.Register(Request({1, 2}, "mallory-token")).value(), Conn(5));
  ASSERT_TRUE(reconnect.ok()) << reconnect.status();
  EXPECT_EQ(reconnect->streams, (std::vector<std::shared_ptr<Connection>>{first}));
  ExpectLive(registry, {1, 2, 11});
}

// Issue 48 item 4: a session token opens a stream only from the TLS identity it was issued on,
// so that a copy of it (or one registered before the certificate was revoked) opens nothing from
// another certificate; the refusal leaves it to its own client.
TEST(RegistryTest, ASessionTokenBindsOnlyFromTheIdentityItWasIssuedOn) {
  Registry registry("secret", 10);
  const std::string token = registry.Register(Request({1}), "alice").value();
  const absl::Status other = registry.CheckPending(token, "mallory");
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(other.message(),
            "the session token was issued on TLS identity 'alice', not on this stream's 'mallory'");
  EXPECT_EQ(registry.Bind(token, Conn(1, "mallory")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(registry.Bind(token, Conn(2)).status().code(), absl::StatusCode::kPermissionDenied);
  ExpectLive(registry, {});
  EXPECT_TRUE(registry.CheckPending(token, "alice").ok());
  EXPECT_TRUE(registry.Bind(token, Conn(3, "alice")).ok());
  // Without TLS identities, as before: the token alone.
  const std::string plain = registry.Register(Request({2})).value();
  EXPECT_EQ(registry.Bind(plain, Conn(4, "someone")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(registry.Bind(plain, Conn(5)).ok());
  EXPECT_EQ(registry.CheckPending("nope", "").code(), absl::StatusCode::kNotFound);
}

// With a credentials file, ids belong to credentials: a client registers only its own ids, by its
// own token (or TLS identity); the shared token means nothing.
TEST(RegistryTest, CredentialsBindIdsToTheirHolders) {
  Registry registry("shared", 20);
  auto credentials = std::make_shared<const Credentials>(
      Credentials::Parse(absl::StrCat(TokenCredential("alice-token"), " 1-5\n",
                                      TokenCredential("mallory-token"), " 6\n",
                                      "identity:bob 7-8\n"))
          .value());
  registry.set_credentials([credentials] { return credentials; });
  EXPECT_EQ(registry.Register(Request({1}, "shared")).status().code(),
            absl::StatusCode::kUnauthenticated);
  const absl::Status squat = registry.Register(Request({6, 1}, "mallory-token")).status();
  EXPECT_EQ(squat.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(squat.message(), "participant id 1 does not belong to this client's credential");
  EXPECT_TRUE(registry.Register(Request({6}, "mallory-token")).ok());
  EXPECT_TRUE(registry.Register(Request({1, 5}, "alice-token")).ok());
  EXPECT_TRUE(registry.Register(Request({7, 8}, "anything"), "bob").ok());
  EXPECT_EQ(registry.Register(Request({1}, "anything"), "bob").status().code(),
            absl::StatusCode::kPermissionDenied);
}

// The holder that reconnects while its old stream still looks alive takes its ids over; the old
// stream is handed back to be ended.
TEST(RegistryTest, TheSameCredentialTakesItsIdsOver) {
  Registry registry("shared", 20);
  auto credentials = std::make_shared<const Credentials>(
      Credentials::Parse(absl::StrCat(TokenCredential("alice-token"), " 1-5\n")).value());
  registry.set_credentials([credentials] { return credentials; });
  auto old_stream = Conn(1), new_stream = Conn(2);
  ASSERT_TRUE(
      registry.Bind(registry.Register(Request({1, 2}, "alice-token")).value(), old_stream).ok());
  absl::StatusOr<Registry::Takeover> replaced =
      registry.Bind(registry.Register(Request({1, 2, 3}, "alice-token")).value(), new_stream);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->streams, (std::vector<std::shared_ptr<Connection>>{old_stream}));
  EXPECT_EQ(replaced->participant_ids, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(registry.IsBound(old_stream.get()));
  EXPECT_EQ(registry.ConnectionOf(1), new_stream);
  ExpectLive(registry, {1, 2, 3});
  EXPECT_TRUE(registry.Unbind(old_stream.get()).empty());  // its end changes nothing
}

}  // namespace
}  // namespace fedmf::server
