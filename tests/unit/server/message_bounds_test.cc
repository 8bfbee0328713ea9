// BoundsOf: the largest honest message of each stage fits its task's bounds, an amplified one of
// the same bytes does not, the graph's degree and the clear upload's length set them, and they
// saturate at the upload bound.
#include "server/message_bounds.h"

#include <algorithm>
#include <string>

#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/shamir.h"
#include "gtest/gtest.h"
#include "wire/repeated_fields.h"

namespace fedmf::server {
namespace {

constexpr uint64_t kNoCap = ~uint64_t{0};

v1::RoundTask SecureTask(int num_clients, uint64_t length, int bits, int degree = 0) {
  v1::RoundTask task;
  task.mutable_plan()->set_combination(v1::COMBINATION_SECURE_SUM);
  task.mutable_plan()->set_length(length);
  v1::SecAggParams* p = task.mutable_secagg();
  p->set_num_clients(num_clients);
  p->set_length(length);
  p->set_bits(bits);
  p->set_harary_graph(degree > 0);
  p->set_degree(degree);
  return task;
}

// Whether `m` fits `bounds` in bytes and in repeated elements.
bool Fits(const v1::ClientMessage& m, const MessageBounds& bounds) {
  return m.ByteSizeLong() <= bounds.max_bytes &&
         wire::CheckRepeatedElements(*m.GetDescriptor(), m.SerializeAsString(), bounds.max_elements)
             .ok();
}

v1::ClientMessage Secagg(uint32_t id) {
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(id);
  m.mutable_secagg()->set_round(1LL << 40);
  m.mutable_secagg()->set_phase(3);
  return m;
}

TEST(MessageBoundsTest, TheLargestHonestMessageOfEveryStageFits) {
  const int n = 50;
  const MessageBounds bounds = BoundsOf(SecureTask(n, 10000, 30), kNoCap);
  v1::ClientMessage masked = Secagg(n);
  auto* input = masked.mutable_secagg()->mutable_message()->mutable_masked_input();
  input->set_packed(std::string(secagg::PackedSize(10000, 30), 'x'));
  for (uint32_t id = 1; id < n; ++id) input->add_unusable_shares_from(1000000 + id);
  EXPECT_TRUE(Fits(masked, bounds));
  v1::ClientMessage shares = Secagg(n);
  for (uint32_t id = 1; id < n; ++id) {
    auto* s = shares.mutable_secagg()->mutable_message()->mutable_share_keys()->add_shares();
    s->set_peer_id(1000000 + id);
    s->set_ciphertext(std::string(secagg::kShareCiphertextSize, 'c'));
    s->set_key_share_commitment(std::string(secagg::kCommitmentSize, 'k'));
    s->set_self_mask_share_commitment(std::string(secagg::kCommitmentSize, 'b'));
  }
  EXPECT_TRUE(Fits(shares, bounds));
  v1::ClientMessage unmasking = Secagg(n);
  auto* u = unmasking.mutable_secagg()->mutable_message()->mutable_unmasking();
  for (uint32_t id = 1; id < n; ++id) {
    for (auto* list : {u->mutable_self_mask_shares(), u->mutable_key_shares()}) {
      v1::secagg::RevealedShare* r = list->Add();
      r->set_owner_id(1000000 + id);
      r->set_share(std::string(crypto::kShamirShareSize, 's'));
      r->set_salt(std::string(secagg::kShareSaltSize, 't'));
    }
  }
  EXPECT_TRUE(Fits(unmasking, bounds));
}

TEST(MessageBoundsTest, EmptySubmessagesWithinTheBytesExceedTheElements) {
  const MessageBounds bounds = BoundsOf(SecureTask(50, 10000, 30), kNoCap);
  v1::ClientMessage m = Secagg(1);
  auto* shares = m.mutable_secagg()->mutable_message()->mutable_share_keys()->mutable_shares();
  // As many empty shares as keep 2 bytes of room, i.e. one at a time while size + 2 <= max_bytes,
  // but in chunks while far below it (ByteSizeLong per share is quadratic: 2 min under ASan).
  // A chunk is at most an eighth of the room in shares of >= 2 bytes, so it stays below the bound
  // (the enclosing lengths' varints grow by a few bytes at most) and the count ends where the
  // one-at-a-time loop ends.
  for (uint64_t size = m.ByteSizeLong(); size + 2 <= bounds.max_bytes; size = m.ByteSizeLong()) {
    const uint64_t chunk = std::max<uint64_t>(1, (bounds.max_bytes - size) / 8);
    for (uint64_t i = 0; i < chunk; ++i) shares->Add();
  }
  EXPECT_FALSE(Fits(m, bounds));
}

TEST(MessageBoundsTest, AHararyGraphBoundsByItsDegree) {
  const MessageBounds complete = BoundsOf(SecureTask(1000, 100, 20), kNoCap);
  const MessageBounds harary = BoundsOf(SecureTask(1000, 100, 20, /*degree=*/10), kNoCap);
  EXPECT_LT(harary.max_bytes, complete.max_bytes);
  EXPECT_LT(harary.max_elements, complete.max_elements);
  // Per member of the closed neighborhood, not per cohort member.
  EXPECT_EQ(BoundsOf(SecureTask(12, 100, 20, 10), kNoCap).max_bytes, harary.max_bytes);
}

TEST(MessageBoundsTest, AClearUploadOfThePlansLengthFits) {
  v1::RoundTask task;
  task.mutable_plan()->set_combination(v1::COMBINATION_CLEAR);
  task.mutable_plan()->set_length(5000);
  const MessageBounds bounds = BoundsOf(task, kNoCap);
  v1::ClientMessage m;
  v1::ClearUpload* upload = m.mutable_clear_upload();
  upload->set_participant_id(~uint32_t{0});
  upload->set_round(1LL << 40);
  upload->set_sparse(true);
  for (uint64_t i = 0; i < 5000; ++i) {
    upload->add_indices(~uint64_t{0} - i);
    upload->add_values(~uint64_t{0});
  }
  EXPECT_TRUE(Fits(m, bounds));
  for (uint64_t i = 0; i <= kUnplannedBounds.max_elements; ++i) upload->add_values(1);
  EXPECT_FALSE(Fits(m, bounds));  // beyond the room every message has
}

TEST(MessageBoundsTest, SaturatesAtTheUploadBound) {
  const MessageBounds bounds =
      BoundsOf(SecureTask(secagg::kMaxClients, ~uint64_t{0}, 99), uint64_t{1} << 30);
  EXPECT_EQ(bounds.max_bytes, uint64_t{1} << 30);
  v1::RoundTask clear;
  clear.mutable_plan()->set_combination(v1::COMBINATION_CLEAR);
  clear.mutable_plan()->set_length(~uint64_t{0});
  EXPECT_EQ(BoundsOf(clear, kNoCap).max_bytes, kNoCap);
  EXPECT_EQ(BoundsOf(clear, kNoCap).max_elements, kNoCap);
}

TEST(MessageBoundsTest, LargerTakesEachBoundsMaximum) {
  const MessageBounds a{.max_bytes = 10, .max_elements = 5};
  const MessageBounds b{.max_bytes = 7, .max_elements = 9};
  EXPECT_EQ(Larger(a, b).max_bytes, 10u);
  EXPECT_EQ(Larger(a, b).max_elements, 9u);
}

}  // namespace
}  // namespace fedmf::server
