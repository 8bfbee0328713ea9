// Misbehaving clients against the SecAgg session (docs/protocol.md, "Misbehaving clients"): what
// is tolerated (the sum is exact and the misbehaviour recorded), what convicts its author (named
// a culprit, the session goes on) and what aborts the session (its culprit named); never an honest
// client named, and honest clients never abort.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "crypto/mersenne61.h"
#include "crypto/shamir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ClientToServer;
using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::RunSession;
using ::testing::HasSubstr;

constexpr uint32_t kCulprit = 3;

SessionConfig Config(int n, int t, bool signatures = true) {
  SessionConfig c;
  c.context = "secagg-misbehaviour-test";
  c.num_clients = n;
  c.threshold = t;
  c.bits = 20;
  c.length = 9;
  c.signatures = signatures;
  c.consistency_check = signatures;
  return c;
}

std::string RandomBytes(size_t n, std::mt19937_64& rng) {
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

// Replaces the ciphertexts `from` sends to the clients in `to` (all if empty) by random bytes.
auto GarbageShares(uint32_t from, std::vector<uint32_t> to = {}) {
  auto rng = std::make_shared<std::mt19937_64>(7);
  return [from, to, rng](uint32_t client, ClientToServer& m) {
    if (client != from || !m.has_share_keys()) return;
    for (auto& entry : *m.mutable_share_keys()->mutable_shares()) {
      if (!to.empty() && std::find(to.begin(), to.end(), entry.peer_id()) == to.end()) continue;
      entry.set_ciphertext(RandomBytes(entry.ciphertext().size(), *rng));
    }
  };
}

// A different valid share: the first field element plus one, mod 2^61 - 1.
void Falsify(std::string& share) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{static_cast<uint8_t>(share[b])} << (8 * b);
  v = crypto::AddModMersenne61(v, 1);
  for (int b = 0; b < 8; ++b) share[b] = static_cast<char>(v >> (8 * b));
}

void ExpectExactSumWithoutAborts(const DriverResult& r) {
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_TRUE(r.client_aborts.empty()) << r.client_aborts.begin()->second;
}

std::vector<uint32_t> Culprits(const DriverResult& r) {
  std::vector<uint32_t> out;
  for (const auto& m : r.misbehaviour) {
    if (m.culprit) out.push_back(m.client_id);
  }
  return out;
}

// Tolerated: ciphertexts to a few neighbors that do not decrypt. The receivers report them and
// still add the sender's pairwise mask; the sender's secret is rebuilt from the other holders.
TEST(SecAggMisbehaviourTest, UndecryptableSharesToSomeNeighborsAreTolerated) {
  DriverOptions o;
  o.config = Config(8, 5);
  o.tamper_client = GarbageShares(kCulprit, {1, 2});
  const DriverResult r = RunSession(o);
  ExpectExactSumWithoutAborts(r);
  EXPECT_EQ(r.included.size(), 8u);
  EXPECT_TRUE(Culprits(r).empty());
  ASSERT_EQ(r.misbehaviour.size(), 1u);
  EXPECT_EQ(r.misbehaviour[0].client_id, kCulprit);
  EXPECT_THAT(r.misbehaviour[0].evidence, HasSubstr("2 holder(s): 1,2"));
}

// The same when the sender then drops: its masking key is rebuilt from the holders that could
// decrypt its shares.
TEST(SecAggMisbehaviourTest, UndecryptableSharesOfADroppedClientAreTolerated) {
  DriverOptions o;
  o.config = Config(8, 5, /*signatures=*/false);
  o.tamper_client = GarbageShares(kCulprit, {1, 2});
  o.drops[kCulprit] = DropPoint::kMaskedInput;
  const DriverResult r = RunSession(o);
  ExpectExactSumWithoutAborts(r);
  EXPECT_EQ(r.included.size(), 7u);
}

// Aborts, naming the culprit: ciphertexts to every neighbor that do not decrypt leave its secret
// without holders. No honest client aborts, and the session stops before any share is revealed.
TEST(SecAggMisbehaviourTest, UndecryptableSharesToEveryoneNameTheSenderAsCulprit) {
  DriverOptions o;
  o.config = Config(8, 5);
  o.tamper_client = GarbageShares(kCulprit);
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted) << r.status;
  EXPECT_THAT(r.status.message(), HasSubstr("MaskedInput"));
  EXPECT_THAT(Culprits(r), ::testing::ElementsAre(kCulprit));
  EXPECT_EQ(r.client_aborts.size(), 8u);  // told by the server, none on its own
  for (const auto& [id, reason] : r.client_aborts) {
    EXPECT_THAT(reason, HasSubstr("server aborted: ")) << "client " << id;
  }
}

// Falsifies every share `client` reveals, its own included.
auto FalseReveals(std::vector<uint32_t> liars) {
  return [liars](uint32_t client, ClientToServer& m) {
    if (!m.has_unmasking() || std::find(liars.begin(), liars.end(), client) == liars.end()) return;
    for (auto& r : *m.mutable_unmasking()->mutable_self_mask_shares()) Falsify(*r.mutable_share());
    for (auto& r : *m.mutable_unmasking()->mutable_key_shares()) Falsify(*r.mutable_share());
  };
}

// Convicted: holders that reveal false shares at unmasking. Each revealed share is checked
// against its dealer's commitment, so the false ones are discarded and their revealers named
// culprits; the secrets are rebuilt from the rest, however many holders lie, as long as t true
// shares remain. Here 4 of 11 lie, more than the (11 - 5) / 2 = 3 false shares that decoding
// alone could correct (before share commitments, the honest dealers were then named).
TEST(SecAggMisbehaviourTest, FalseRevealsConvictOnlyTheRevealers) {
  for (const bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "with a dropped client (key shares)" : "self-mask shares");
    DriverOptions o;
    o.config = Config(11, 5, /*signatures=*/false);
    if (drop) o.drops[11] = DropPoint::kMaskedInput;
    const std::vector<uint32_t> liars = {1, 2, 3, 4};  // their shares arrive first
    o.tamper_client = FalseReveals(liars);
    const DriverResult r = RunSession(o);
    ExpectExactSumWithoutAborts(r);
    ASSERT_FALSE(r.misbehaviour.empty());
    for (const auto& m : r.misbehaviour) {
      EXPECT_TRUE(m.culprit) << m.evidence;
      EXPECT_THAT(liars, ::testing::Contains(m.client_id)) << m.evidence;
    }
    std::vector<uint32_t> culprits = Culprits(r);
    std::sort(culprits.begin(), culprits.end());
    culprits.erase(std::unique(culprits.begin(), culprits.end()), culprits.end());
    EXPECT_EQ(culprits, liars);
    EXPECT_THAT(r.misbehaviour[0].evidence, HasSubstr("(a false reveal)"));
  }
}

// A client's own share is committed by nobody: a false one is found by decoding, and names the
// client, which is both its dealer and its revealer.
TEST(SecAggMisbehaviourTest, AFalseOwnShareNamesItsOwner) {
  DriverOptions o;
  o.config = Config(9, 5, /*signatures=*/false);
  o.tamper_client = [](uint32_t client, ClientToServer& m) {
    if (client != 1 || !m.has_unmasking()) return;
    for (auto& r : *m.mutable_unmasking()->mutable_self_mask_shares()) {
      if (r.owner_id() == 1) Falsify(*r.mutable_share());
    }
  };
  const DriverResult r = RunSession(o);
  ExpectExactSumWithoutAborts(r);
  ASSERT_EQ(r.misbehaviour.size(), 1u);
  EXPECT_EQ(r.misbehaviour[0].client_id, 1u);
  EXPECT_TRUE(r.misbehaviour[0].culprit);
  EXPECT_THAT(r.misbehaviour[0].evidence, HasSubstr("off its polynomial"));
}

// Aborts, naming the dealer: no b rebuilt from the shares it committed to matches the
// self-mask commitment it advertised.
TEST(SecAggMisbehaviourTest, AFalseSelfMaskCommitmentNamesItsOwner) {
  DriverOptions o;
  o.config = Config(6, 4, /*signatures=*/false);
  o.tamper_client = [](uint32_t client, ClientToServer& m) {
    if (client == kCulprit && m.has_advertise_keys()) {
      m.mutable_advertise_keys()->set_self_mask_commitment(std::string(32, 'x'));
    }
  };
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted) << r.status;
  EXPECT_THAT(Culprits(r), ::testing::ElementsAre(kCulprit));
  EXPECT_THAT(r.status.message(), HasSubstr("client 3"));
}

// Tolerated: commitments that do not match the shares in the ciphertext (a dealer that would
// make an honest holder's reveal look false). The holders check them when they decrypt, report
// those shares unusable and reveal none of them, so nobody honest is named.
TEST(SecAggMisbehaviourTest, CommitmentsNotMatchingTheSharesMakeThemUnusable) {
  DriverOptions o;
  o.config = Config(8, 5);
  o.tamper_client = [](uint32_t client, ClientToServer& m) {
    if (client != kCulprit || !m.has_share_keys()) return;
    for (auto& entry : *m.mutable_share_keys()->mutable_shares()) {
      if (entry.peer_id() == 1 || entry.peer_id() == 2) {
        (*entry.mutable_self_mask_share_commitment())[0] ^= 1;
      }
    }
  };
  const DriverResult r = RunSession(o);
  ExpectExactSumWithoutAborts(r);
  EXPECT_TRUE(Culprits(r).empty());
  ASSERT_EQ(r.misbehaviour.size(), 1u);
  EXPECT_EQ(r.misbehaviour[0].client_id, kCulprit);
  EXPECT_THAT(r.misbehaviour[0].evidence, HasSubstr("2 holder(s): 1,2"));
}

// A low-order public key is refused at AdvertiseKeys and names its sender; the session goes on
// without it, and no honest client aborts (none ever sees the key).
TEST(SecAggMisbehaviourTest, ALowOrderPublicKeyIsRefusedAndNamesItsSender) {
  for (const bool s_key : {false, true}) {
    DriverOptions o;
    o.config = Config(6, 4, /*signatures=*/false);
    o.tamper_client = [s_key](uint32_t client, ClientToServer& m) {
      if (client != kCulprit || !m.has_advertise_keys()) return;
      std::string low_order(32, '\0');
      low_order[0] = 1;  // u = 1, of order 4
      if (s_key) {
        m.mutable_advertise_keys()->set_s_public_key(low_order);
      } else {
        m.mutable_advertise_keys()->set_c_public_key(low_order);
      }
    };
    const DriverResult r = RunSession(o);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.sum, r.expected);
    EXPECT_THAT(r.included, ::testing::ElementsAre(1, 2, 4, 5, 6));
    EXPECT_THAT(Culprits(r), ::testing::ElementsAre(kCulprit));
    EXPECT_THAT(r.misbehaviour[0].evidence,
                HasSubstr(s_key ? "unusable s public key" : "unusable c public key"));
    for (const auto& [id, reason] : r.client_aborts) {
      EXPECT_EQ(id, kCulprit) << "honest client " << id << " aborted: " << reason;
    }
  }
}

// A report naming a client that sent no shares is malformed: the reporter is dropped.
TEST(SecAggMisbehaviourTest, AReportOfANonSenderDropsTheReporter) {
  DriverOptions o;
  o.config = Config(6, 4, /*signatures=*/false);
  o.tamper_client = [](uint32_t client, ClientToServer& m) {
    if (client == 2 && m.has_masked_input()) m.mutable_masked_input()->add_unusable_shares_from(2);
  };
  const DriverResult r = RunSession(o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_THAT(r.included, ::testing::ElementsAre(1, 3, 4, 5, 6));
  EXPECT_TRUE(r.misbehaviour.empty());
}

}  // namespace
}  // namespace fedmf::secagg
