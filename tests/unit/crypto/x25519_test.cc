#include "crypto/x25519.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/hex.h"

namespace fedmf::crypto {
namespace {

using test_util::Hex;
using test_util::ToHex;
using ::testing::HasSubstr;

absl::StatusOr<SecretBytes> Agree(absl::string_view scalar_hex, absl::string_view u_hex) {
  absl::StatusOr<X25519PrivateKey> key = X25519PrivateKey::FromBytes(Hex(scalar_hex));
  if (!key.ok()) return key.status();
  absl::StatusOr<X25519PublicKey> peer = X25519PublicKey::FromBytes(Hex(u_hex));
  if (!peer.ok()) return peer.status();
  return key->ComputeSharedSecret(*peer);
}

// RFC 7748 section 5.2, the two single-call test vectors (scalar, input u, output u). The second
// input u has its top bit set, which X25519 must ignore.
TEST(X25519Test, Rfc7748Section52Vectors) {
  absl::StatusOr<SecretBytes> out =
      Agree("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ToHex(*out), "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");

  out = Agree("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
              "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ToHex(*out), "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
}

// RFC 7748 section 5.2, iterated: k = u = 9; repeat (k, u) <- (X25519(k, u), k). Values after 1
// and 1,000 iterations (the 1,000,000 one is too slow for a unit test).
TEST(X25519Test, Rfc7748Section52Iterations) {
  std::vector<uint8_t> k = Hex("0900000000000000000000000000000000000000000000000000000000000000");
  std::vector<uint8_t> u = k;
  for (int i = 1; i <= 1000; ++i) {
    absl::StatusOr<SecretBytes> r = Agree(ToHex(k), ToHex(u));
    ASSERT_TRUE(r.ok()) << r.status();
    u = k;
    k.assign(r->data(), r->data() + r->size());
    if (i == 1) {
      EXPECT_EQ(ToHex(k), "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
    }
  }
  EXPECT_EQ(ToHex(k), "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
}

// RFC 7748 section 6.1: Alice and Bob's key pairs and their shared secret.
TEST(X25519Test, Rfc7748Section61DiffieHellman) {
  absl::StatusOr<X25519PrivateKey> alice = X25519PrivateKey::FromBytes(
      Hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
  absl::StatusOr<X25519PrivateKey> bob = X25519PrivateKey::FromBytes(
      Hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"));
  ASSERT_TRUE(alice.ok() && bob.ok());
  EXPECT_EQ(ToHex(alice->public_key().bytes()),
            "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  EXPECT_EQ(ToHex(bob->public_key().bytes()),
            "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  absl::StatusOr<SecretBytes> k_alice = alice->ComputeSharedSecret(bob->public_key());
  absl::StatusOr<SecretBytes> k_bob = bob->ComputeSharedSecret(alice->public_key());
  ASSERT_TRUE(k_alice.ok() && k_bob.ok());
  EXPECT_EQ(ToHex(*k_alice), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  EXPECT_EQ(ToHex(*k_bob), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  // The scalar is exported as given (what Shamir sharing of the masking key relies on).
  EXPECT_EQ(ToHex(alice->private_bytes()),
            "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
}

TEST(X25519Test, GeneratedKeysAgreeAndRebuildFromTheirBytes) {
  absl::StatusOr<X25519PrivateKey> a = X25519PrivateKey::Generate();
  absl::StatusOr<X25519PrivateKey> b = X25519PrivateKey::Generate();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->public_key() == b->public_key());
  absl::StatusOr<SecretBytes> ab = a->ComputeSharedSecret(b->public_key());
  absl::StatusOr<SecretBytes> ba = b->ComputeSharedSecret(a->public_key());
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_TRUE(*ab == *ba);
  // A server that rebuilt a's scalar (from Shamir shares) recomputes the same pairwise secret.
  absl::StatusOr<X25519PrivateKey> a_again = X25519PrivateKey::FromBytes(a->private_bytes());
  ASSERT_TRUE(a_again.ok());
  EXPECT_TRUE(a_again->public_key() == a->public_key());
  absl::StatusOr<SecretBytes> ab_again = a_again->ComputeSharedSecret(b->public_key());
  ASSERT_TRUE(ab_again.ok());
  EXPECT_TRUE(*ab_again == *ab);
}

// An imported key (and its copies) agrees exactly as the plain key, RFC 7748's vector included,
// and still rejects a low-order point.
TEST(X25519Test, ImportedPublicKeyAgreesAsThePlainOne) {
  absl::StatusOr<X25519PrivateKey> alice = X25519PrivateKey::FromBytes(
      Hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
  absl::StatusOr<X25519PublicKey> bob = X25519PublicKey::FromBytes(
      Hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"));
  ASSERT_TRUE(alice.ok() && bob.ok());
  absl::StatusOr<X25519PublicKey> imported = bob->Imported();
  ASSERT_TRUE(imported.ok());
  EXPECT_TRUE(*imported == *bob);
  const X25519PublicKey copy = *imported;
  const X25519PublicKey& original = *imported;
  for (const X25519PublicKey* peer : {&original, &copy}) {
    absl::StatusOr<SecretBytes> k = alice->ComputeSharedSecret(*peer);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ(ToHex(*k), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  }
  absl::StatusOr<X25519PublicKey> low_order =
      X25519PublicKey::FromBytes(std::vector<uint8_t>(kX25519KeySize, 0));
  ASSERT_TRUE(low_order.ok());
  low_order = low_order->Imported();
  ASSERT_TRUE(low_order.ok());
  EXPECT_EQ(alice->ComputeSharedSecret(*low_order).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(X25519Test, RejectsWrongKeyLengths) {
  for (size_t size : {0, 31, 33, 64}) {
    EXPECT_EQ(X25519PublicKey::FromBytes(std::vector<uint8_t>(size, 9)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << size;
    EXPECT_EQ(X25519PrivateKey::FromBytes(std::vector<uint8_t>(size, 9)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << size;
  }
}

// Points of small order make every clamped scalar (a multiple of 8) give u = 0. The list is the
// usual one (as in libsodium's blocklist): 0, 1, the two points of order 8, p - 1, p and p + 1
// (p = 2^255 - 19), plus 0 and 1 with the ignored top bit set.
TEST(X25519Test, RejectsLowOrderPublicKeys) {
  const char* kLowOrder[] = {
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0100000000000000000000000000000000000000000000000000000000000000",
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "0000000000000000000000000000000000000000000000000000000000000080",
      "0100000000000000000000000000000000000000000000000000000000000080",
  };
  absl::StatusOr<X25519PrivateKey> key = X25519PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  for (const char* u : kLowOrder) {
    absl::StatusOr<X25519PublicKey> peer = X25519PublicKey::FromBytes(Hex(u));
    ASSERT_TRUE(peer.ok());
    absl::StatusOr<SecretBytes> secret = key->ComputeSharedSecret(*peer);
    EXPECT_EQ(secret.status().code(), absl::StatusCode::kInvalidArgument) << u;
    EXPECT_THAT(secret.status().message(), HasSubstr("low-order")) << u;
    // The relay's check, with no private key of its own, refuses the same list.
    EXPECT_EQ(CheckNotLowOrder(*peer).code(), absl::StatusCode::kInvalidArgument) << u;
  }
  // ... and passes real keys, and the RFC's u = 9 base point.
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<X25519PrivateKey> fresh = X25519PrivateKey::Generate();
    ASSERT_TRUE(fresh.ok());
    EXPECT_TRUE(CheckNotLowOrder(fresh->public_key()).ok());
  }
  std::vector<uint8_t> base(kX25519KeySize, 0);
  base[0] = 9;
  EXPECT_TRUE(CheckNotLowOrder(X25519PublicKey::FromBytes(base).value()).ok());
}

}  // namespace
}  // namespace fedmf::crypto
