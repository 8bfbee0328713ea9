// Privacy checks of the SecAgg protocol from the server's point of view: a client's masked input,
// even after the server removes the self mask it is entitled to, is uniform; and no unmasking
// response ever carries both the self-mask share and the key share of one client, even when the
// server lies about who dropped out.
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "crypto/secagg/derivation.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/shamir.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ServerToClient;
using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::RunSession;

double ChiSquare(const std::array<int, 8>& counts) {
  double total = 0;
  for (int c : counts) total += c;
  const double expected = total / 8;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

// Client 1's input is the constant 5 in Z_8. Over 200 sessions x 64 coordinates = 12800 values,
// both y_1 and y_1 - PRG(b_1) (what the server holds after reconstructing b_1 from revealed shares)
// must look uniform on Z_8. Pearson chi-square with 7 degrees of freedom exceeds 41 with
// probability 8.1e-7 under uniformity; an unmasked or self-mask-only input gives chi2 = 89600.
TEST(SecAggPrivacyTest, MaskedInputIsUniformInServerView) {
  constexpr int kRuns = 200;
  constexpr size_t kLength = 64;
  std::array<int, 8> masked_counts{}, view_counts{};
  for (int run = 0; run < kRuns; ++run) {
    DriverOptions o;
    o.config = test_util::CompleteGraph("secagg-privacy-test", 3, 2, 3, kLength);
    o.input_seed = static_cast<uint64_t>(run) + 1;
    o.fixed_inputs[1] = std::vector<uint64_t>(kLength, 5);
    SessionId sid{};
    std::map<uint32_t, std::string> masked;
    std::map<uint32_t, std::vector<crypto::ShamirShare>> self_mask_shares;
    o.tamper_server = [&sid](uint32_t, ServerToClient& m) {
      if (m.has_share_keys()) {
        std::copy(m.share_keys().session_id().begin(), m.share_keys().session_id().end(),
                  sid.begin());
      }
    };
    o.tamper_client = [&](uint32_t id, ClientToServer& m) {
      if (m.has_masked_input()) masked[id] = m.masked_input().packed();
      if (!m.has_unmasking()) return;
      for (const auto& s : m.unmasking().self_mask_shares()) {
        // Complete graph over ids 1..3: holder v's Shamir index is its rank + 1 = v.
        self_mask_shares[s.owner_id()].push_back({id, crypto::SecretBytes(AsBytes(s.share()))});
      }
    };
    const DriverResult r = RunSession(o);
    ASSERT_TRUE(r.status.ok()) << r.status;

    MaskAccumulator total = MaskAccumulator::Create(3, kLength).value();
    for (uint32_t u = 1; u <= 3; ++u) {
      const crypto::SecretBytes b = crypto::ShamirReconstruct(self_mask_shares[u], {2, 3}).value();
      MaskAccumulator view = MaskAccumulator::Create(3, kLength).value();
      ASSERT_TRUE(view.AddPacked(AsBytes(masked[u])).ok());
      ASSERT_TRUE(
          view.AddMask(SelfMaskSeed(b.span(), u, sid).value().span(), crypto::MaskOp::kSubtract)
              .ok());
      const std::vector<uint64_t> values = view.Values();
      ASSERT_TRUE(total.AddValues(values).ok());
      if (u != 1) continue;
      for (uint64_t v : values) ++view_counts[v];
      const absl::StatusOr<std::vector<uint64_t>> y = UnpackVector(AsBytes(masked[1]), kLength, 3);
      ASSERT_TRUE(y.ok());
      for (uint64_t v : *y) ++masked_counts[v];
    }
    // This really is the server's view: without self masks, the pairwise masks cancel.
    ASSERT_EQ(total.Values(), r.expected);
  }
  EXPECT_LT(ChiSquare(masked_counts), 41.0);
  EXPECT_LT(ChiSquare(view_counts), 41.0);
}

// Per response: the owners of revealed self-mask shares and of revealed key shares are disjoint,
// across sessions with dropouts before and after the masked input.
TEST(SecAggPrivacyTest, NoResponseRevealsBothSharesOfOneClient) {
  int key_shares_seen = 0;
  for (int run = 0; run < 10; ++run) {
    DriverOptions o;
    o.config = test_util::CompleteGraph("secagg-privacy-test", 12, 7, 8, 4);
    o.input_seed = static_cast<uint64_t>(run) + 100;
    o.drops = {{static_cast<uint32_t>(run + 1), DropPoint::kMaskedInput},
               {static_cast<uint32_t>((run + 5) % 12 + 1), DropPoint::kUnmasking}};
    o.tamper_client = [&](uint32_t, ClientToServer& m) {
      if (!m.has_unmasking()) return;
      std::set<uint32_t> self;
      for (const auto& s : m.unmasking().self_mask_shares()) self.insert(s.owner_id());
      for (const auto& s : m.unmasking().key_shares()) {
        EXPECT_FALSE(self.contains(s.owner_id())) << s.owner_id();
        ++key_shares_seen;
      }
    };
    ASSERT_TRUE(RunSession(o).status.ok());
  }
  EXPECT_GT(key_shares_seen, 0);
}

// A server that claims to clients 2 and 3 that client 1 dropped (though its masked input arrived)
// and to clients 4 and 5 that it survived gets key shares of 1 from 2 and 3 and self-mask shares
// from 1, 4 and 5 -- never both from one client, so with t = 3 > n / 2 never t of both kinds.
TEST(SecAggPrivacyTest, LyingAboutDropoutsYieldsFewerThanThresholdKeyShares) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-privacy-test", 5, 3, 8, 4);
  std::map<uint32_t, int> key_shares_of, self_shares_of;
  o.tamper_server = [](uint32_t id, ServerToClient& m) {
    if (m.has_unmasking() && (id == 2 || id == 3)) m.mutable_unmasking()->add_dropped_ids(1);
  };
  o.tamper_client = [&](uint32_t, ClientToServer& m) {
    if (!m.has_unmasking()) return;
    for (const auto& s : m.unmasking().key_shares()) ++key_shares_of[s.owner_id()];
    for (const auto& s : m.unmasking().self_mask_shares()) ++self_shares_of[s.owner_id()];
  };
  RunSession(o);
  EXPECT_EQ(key_shares_of[1], 2);
  EXPECT_EQ(self_shares_of[1], 3);
  EXPECT_LT(key_shares_of[1], o.config.threshold);
}

}  // namespace
}  // namespace fedmf::secagg
