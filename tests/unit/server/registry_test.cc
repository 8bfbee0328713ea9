// Registry alone: the credentials check at Register, pending registrations, their bounds and
// expiry, and session tokens redeemed once, from the identity they were issued on.
#include "server/registry.h"

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

// Redeeming a session token hands out what was registered, once.
TEST(RegistryTest, ASessionTokenIsRedeemedOnceForWhatWasRegistered) {
  Registry registry("secret", 10);
  v1::RegisterRequest request = Request({3, 1});
  request.set_client_name("phone");
  request.set_accepts_check_in(true);
  const std::string token = registry.Register(request, "alice").value();
  EXPECT_EQ(token.size(), 16u);
  EXPECT_EQ(registry.Redeem("nope", "alice").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<Registration> r = registry.Redeem(token, "alice");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->name, "phone");
  EXPECT_EQ(r->identity, "alice");
  EXPECT_EQ(r->credential, "");  // the shared token is nobody's
  EXPECT_EQ(r->signing_key, std::string(32, 'k'));
  EXPECT_EQ(r->participant_ids, (std::vector<uint32_t>{1, 3}));
  EXPECT_TRUE(r->accepts_check_in);
  EXPECT_EQ(registry.pending(), 0u);
  EXPECT_EQ(registry.Redeem(token, "alice").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.CheckPending(token, "alice").code(), absl::StatusCode::kNotFound);
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
  EXPECT_EQ(registry.Redeem(first, "").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(registry.Redeem(second, "").ok());  // 30 s old: still valid
  clock.now += absl::Seconds(60);
  EXPECT_EQ(registry.Redeem(third, "").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.pending(), 0u);
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
  // A registration redeemed frees its identity's place.
  ASSERT_TRUE(registry.Redeem(a, "mallory").ok());
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

// Issue 48 item 4: a session token opens a stream only from the TLS identity it was issued on,
// so that a copy of it (or one registered before the certificate was revoked) opens nothing from
// another certificate; the refusal leaves it to its own client.
TEST(RegistryTest, ASessionTokenIsRedeemedOnlyFromTheIdentityItWasIssuedOn) {
  Registry registry("secret", 10);
  const std::string token = registry.Register(Request({1}), "alice").value();
  const absl::Status other = registry.CheckPending(token, "mallory");
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(other.message(),
            "the session token was issued on TLS identity 'alice', not on this stream's 'mallory'");
  EXPECT_EQ(registry.Redeem(token, "mallory").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(registry.Redeem(token, "").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(registry.CheckPending(token, "alice").ok());
  EXPECT_TRUE(registry.Redeem(token, "alice").ok());
  // Without TLS identities, as before: the token alone.
  const std::string plain = registry.Register(Request({2})).value();
  EXPECT_EQ(registry.Redeem(plain, "someone").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(registry.Redeem(plain, "").ok());
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
  const std::string alice = registry.Register(Request({1, 5}, "alice-token")).value();
  const std::string bob = registry.Register(Request({7, 8}, "anything"), "bob").value();
  EXPECT_EQ(registry.Register(Request({1}, "anything"), "bob").status().code(),
            absl::StatusCode::kPermissionDenied);
  // The credential matched goes with the registration, for the Placement's takeovers and caps.
  EXPECT_EQ(registry.Redeem(alice, "").value().credential, TokenCredential("alice-token"));
  EXPECT_EQ(registry.Redeem(bob, "bob").value().credential, IdentityCredential("bob"));
}

}  // namespace
}  // namespace fedmf::server
