// One misbehaving client against the SecAgg session (docs/protocol.md, "Misbehaving clients"):
// what is tolerated (the sum is exact and the misbehaviour recorded) and what aborts the session
// (its culprit named, never an honest client; honest clients never abort).
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
    if (m.aborted_session) out.push_back(m.client_id);
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

// Tolerated: a holder that reveals false shares at unmasking. The first t shares fail the
// commitment (or key) check, decoding all of them corrects the false ones, and the holder is
// recorded (not excluded: a share off the polynomial may also be its dealer's doing).
TEST(SecAggMisbehaviourTest, FalseRevealedSharesFromOneHolderAreCorrected) {
  for (const bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "with a dropped client (key shares)" : "self-mask shares");
    DriverOptions o;
    o.config = Config(9, 5, /*signatures=*/false);
    if (drop) o.drops[9] = DropPoint::kMaskedInput;
    o.tamper_client = [](uint32_t client, ClientToServer& m) {
      if (client != 1 || !m.has_unmasking()) return;  // client 1's shares come first
      for (auto& r : *m.mutable_unmasking()->mutable_self_mask_shares())
        Falsify(*r.mutable_share());
      for (auto& r : *m.mutable_unmasking()->mutable_key_shares()) Falsify(*r.mutable_share());
    };
    const DriverResult r = RunSession(o);
    ExpectExactSumWithoutAborts(r);
    EXPECT_TRUE(Culprits(r).empty());
    ASSERT_FALSE(r.misbehaviour.empty());
    for (const auto& m : r.misbehaviour) {
      EXPECT_EQ(m.client_id, 1u) << m.evidence;
      EXPECT_THAT(m.evidence, HasSubstr("off the polynomial"));
    }
  }
}

// Aborts, naming the dealer: every holder's share of client 3's self-mask secret is of a secret
// other than the one it committed to (as when client 3 dealt shares of another b).
TEST(SecAggMisbehaviourTest, SharesOfAnotherSecretThanCommittedNameTheDealer) {
  DriverOptions o;
  o.config = Config(6, 4, /*signatures=*/false);
  const std::vector<uint8_t> other(crypto::kShamirSecretSize, 0x42);
  const auto shares = std::make_shared<std::vector<crypto::ShamirShare>>(
      crypto::ShamirSplit(other, {4, 6}).value());
  o.tamper_client = [shares](uint32_t client, ClientToServer& m) {
    if (!m.has_unmasking()) return;
    for (auto& r : *m.mutable_unmasking()->mutable_self_mask_shares()) {
      // Complete graph of ids 1..6: client c holds Shamir index c.
      if (r.owner_id() == kCulprit) {
        const crypto::SecretBytes& v = (*shares)[client - 1].value;
        r.set_share(std::string(v.data(), v.data() + v.size()));
      }
    }
  };
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted) << r.status;
  EXPECT_THAT(Culprits(r), ::testing::ElementsAre(kCulprit));
  EXPECT_THAT(r.status.message(), HasSubstr("client 3"));
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
